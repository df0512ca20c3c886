// Swagger UI's files, imported `with { type: "file" }` (docs-assets.ts): the import is their path.
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const path: string;
  export default path;
}
declare module "swagger-ui-dist/swagger-ui.css" {
  const path: string;
  export default path;
}
