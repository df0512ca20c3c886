import type { Command } from "./cli.ts";

/**
 * Commands contributed by other domains (models, ingestion worker). Kept apart so cli.ts stays
 * the contract of the foundation commands.
 */
export const EXTRA_COMMANDS: Record<string, Command> = {};
