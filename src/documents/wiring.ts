import { Elysia } from "elysia";
import type { AppContext } from "../context.ts";
import type { Services } from "../http/services.ts";
import { corpusService } from "../corpus/service.ts";
import { loadStorageSecret } from "../storage/secret.ts";
import { presigner } from "../storage/presigner.ts";
import { storageRoutes } from "../storage/routes.ts";
import { documentService } from "./service.ts";
import { documentRoutes } from "./routes.ts";
import { attachmentAliasRoutes } from "./attachment-routes.ts";

/**
 * How documents and presigned storage plug into http/app.ts: one spread in buildServices,
 * one `.use` in buildApp, so the shared files carry a single line each.
 */
export const documentWiring = {
  services(ctx: AppContext): Pick<Services, "documents" | "presigner" | "storageSecret"> {
    const storageSecret = loadStorageSecret(ctx.config.dataDir);
    const sign = presigner(storageSecret, ctx.config.uploadUrlTtl, ctx.config.downloadUrlTtl);
    const corpora = corpusService(ctx.db, ctx.clock);
    return { storageSecret, presigner: sign, documents: documentService(ctx, sign, corpora.exists) };
  },
  routes(ctx: AppContext, s: Services) {
    const corpora = corpusService(ctx.db, ctx.clock);
    return new Elysia({ name: "documents" })
      .use(storageRoutes(ctx, s.storageSecret))
      .use(documentRoutes(ctx, s.documents, s.presigner, corpora.owned))
      .use(attachmentAliasRoutes(ctx, s.documents, s.presigner));
  },
};
