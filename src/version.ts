/** The release version: served by /pub/ping and the OpenAPI document, printed by `kbqa --version`. */
export const VERSION = "0.1.0";
