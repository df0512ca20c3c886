/** A conversion failure whose message is shown to users as the document's statusMsg. */
export class ConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConversionError";
  }
}
