#!/usr/bin/env bun
/**
 * The operator CLI: `kbqa <command> [flags]`. Output contract: JSON (or the single
 * "kbqa listening on …" line) on stdout, everything else on stderr; usage errors exit 2.
 */
import { ConfigError, defaultNote, FIELDS, isBooleanWord, loadConfig, settingLabel, type Config } from "./config.ts";
import { resolve } from "node:path";
import { NewerDataDir, openDb } from "./store/db.ts";
import { diagnoseStorage } from "./store/storage-errors.ts";
import { DataDirInUse } from "./store/data-lock.ts";
import { NativeDirUnusable } from "./runtime/native.ts";
import { ModelFileError } from "./models/errors.ts";
import { stderrLogger } from "./context.ts";
import { createOrg, listOrgs, orgExists } from "./auth/orgs.ts";
import { addKey, deleteKey, KeyError, listKeys, setKeyActive } from "./auth/keys.ts";
import { EXTRA_COMMANDS } from "./cli-extra.ts";
import { CliFailure, UsageError } from "./cli/errors.ts";
import { checkDir, dataDirOpenFailure, KID, KID_RULE, readPublicKeyFile } from "./cli/files.ts";
import { VERSION } from "./version.ts";

export { CliFailure, UsageError };

export interface Parsed {
  positional: string[];
  flags: Record<string, string | boolean>;
  /**
   * A flag given without its value (last, or followed by another --flag); reported once the
   * command is known (an unknown flag is told as unknown).
   */
  missingValue?: string;
  /**
   * Positional words that came right after a boolean flag (index in `positional` → flag name).
   * Such a flag takes no separate value, so the word is an argument; when it is no argument the
   * command takes, or reads as the flag's value, the refusal says how to give a value instead.
   */
  afterBoolFlag: Map<number, string>;
}

const BOOL_FLAGS = new Set(["help", "version", "log-requests"]);

export function parseArgs(argv: string[]): Parsed {
  const positional: string[] = [];
  const flags: Record<string, string | boolean> = {};
  let missingValue: string | undefined;
  const afterBoolFlag = new Map<number, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "-h") flags.help = true;
    // `serve -p 8080` read -p as a stray argument ("unexpected argument"); only -h is short. A
    // longer word with one dash stays an argument: an organization may be named "-Acme".
    else if (/^-[A-Za-z]$/.test(a)) throw new Error(`unknown flag ${a}: kbqa's flags are written in full (--port 8080, --data-dir DIR); only -h is short`);
    else if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      if (eq > 0) flags[name] = a.slice(eq + 1);
      else if (BOOL_FLAGS.has(name)) {
        flags[name] = true;
        const v = argv[i + 1];
        if (name !== "help" && name !== "version" && v !== undefined && v !== "-h" && !v.startsWith("--")) afterBoolFlag.set(positional.length, name);
      }
      else {
        // A value never starts with "--": `--org --public-key k.pem` lacks the org, it does not
        // name it "--public-key" (a value that does start so is written --name=--value).
        const v = argv[i + 1];
        if (v === undefined || v.startsWith("--")) {
          missingValue ??= name;
          flags[name] = true;
        } else flags[name] = argv[++i]!;
      }
    } else positional.push(a);
  }
  // `kbqa help [command]` is `kbqa [command] --help`: it was an unknown command "help".
  if (positional[0] === "help") {
    positional.shift();
    flags.help = true;
    for (const [at, name] of [...afterBoolFlag]) {
      afterBoolFlag.delete(at);
      if (at > 0) afterBoolFlag.set(at - 1, name);
    }
  }
  return { positional, flags, missingValue, afterBoolFlag };
}

export interface Command {
  usage: string;
  help: string;
  flags: string[];
  /** Positional arguments by name ("NAME..." takes any number); more are refused. */
  args?: string[];
  /** The directories the command uses: the data directory created or required to exist, the models folder. */
  dirs?: { data?: "create" | "existing"; models?: true };
  /**
   * The settings the command reads besides the directories in `dirs` (none: []; absent: all, as
   * serve). Another setting's environment variable is not read, so a wrong one meant for the
   * server does not stop the command; reading an undeclared setting throws (a bug, not a default).
   */
  settings?: (keyof Config)[];
  /** Refuses a malformed argument (UsageError) before any directory is created or opened. */
  checkArgs?(args: string[]): Promise<void> | void;
  run(args: string[], flags: Record<string, string | boolean>, config: Config): Promise<number> | number;
}

const out = (v: unknown) => console.log(JSON.stringify(v));
/** sysexits.h: internal software error. `serve` exits with it after a bug made it stop. */
const EX_SOFTWARE = 70;
const need = (v: string | boolean | undefined, what: string): string => {
  if (v === undefined || v === true || v === false) throw new UsageError(`missing ${what}`);
  if (v === "") throw new UsageError(`${what} is empty`);
  return v;
};

const COMMANDS: Record<string, Command> = {
  serve: {
    usage: "serve [--host H] [--port P]",
    help: "Start the HTTP server. Prints 'kbqa listening on http://HOST:PORT' when ready; SIGINT/SIGTERM drain and exit 0; an unhandled internal error is logged, drains the same way and exits 70.",
    flags: [],
    dirs: { data: "create", models: true },
    async run(_a, _f, config) {
      // Handlers first: a signal that arrived between the listening line and their installation
      // ended the process with the signal's default action (exit 143, no drain), seen in one
      // start-then-stop out of five. One arriving while the server starts stops it once started.
      let stop: (() => void) | undefined;
      let signalled = false;
      const onSignal = () => {
        signalled = true;
        stop?.();
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      // An error nothing handled is a bug. Going on would leave the background work's own
      // bookkeeping unknown (ingestion could stall for every organization while /pub/ping stays
      // green); without a handler Bun ends the process on the spot, LanceDB and the workers
      // still running (a soak server died with SIGABRT that way). So it is logged with its stack
      // and the server drains and stops as on SIGTERM, exiting with EX_SOFTWARE: a supervisor
      // restarts it and the new process takes the interrupted jobs up again.
      let failed = false;
      const onBug = (kind: string) => (e: unknown) => {
        stderrLogger.error(`${kind}: a bug in kbqa; the server stops so that it can be restarted clean`, {
          error: e instanceof Error ? e.message : String(e),
          stack: e instanceof Error ? e.stack : undefined,
        });
        failed = true;
        onSignal();
      };
      process.on("unhandledRejection", onBug("unhandled rejection"));
      process.on("uncaughtException", onBug("uncaught exception"));
      // Imported here so the key and org commands start fast (no models, no HTTP stack).
      const { startServer } = await import("./server.ts");
      let s: Awaited<ReturnType<typeof startServer>>;
      try {
        s = await startServer(config);
      } catch (e) {
        // Bun's text guesses "port in use" whatever the cause; say the actual one.
        if ((e as { syscall?: string })?.syscall !== "listen" && !/Failed to start server/.test(String((e as Error)?.message))) throw e;
        const { whyCannotListen } = await import("./cli/net.ts");
        throw new CliFailure(await whyCannotListen(config.host, config.port));
      }
      console.log(`kbqa listening on ${s.url}`);
      if (!config.publicUrl && !/^(127\.\d+\.\d+\.\d+|localhost|::1)$/.test(config.host)) {
        // Reachable from other machines: URLs then carry whatever Host a client sent.
        stderrLogger.info("presigned upload and download URLs take their origin from each request's Host header; set --public-url (KBQA_PUBLIC_URL) to the address clients use", { host: config.host });
      }
      await new Promise<void>((resolve) => {
        let stopping: Promise<void> | undefined;
        stop = () => void (stopping ??= s.stop().then(resolve));
        if (signalled) stop();
      });
      return failed ? EX_SOFTWARE : 0;
    },
  },
  "org create": {
    usage: "org create NAME",
    settings: [],
    help: "Create an organization; prints {id, name}.",
    flags: [],
    args: ["NAME"],
    dirs: { data: "create" },
    async checkArgs([name]) {
      const org = need(name, "NAME");
      // The API's rule for a corpus name, not a copy of it: a blank name reads as none in a
      // listing, a newline breaks every line-based listing, and 100,000 characters is no name.
      // Imported here so the other commands do not load the HTTP schema library.
      const [{ CorpusName }, { Value }] = await Promise.all([import("./corpus/schema.ts"), import("@sinclair/typebox/value")]);
      if (!Value.Check(CorpusName, org as unknown)) {
        const got = org.length > CorpusName.maxLength! ? `${org.length} characters` : JSON.stringify(org);
        throw new UsageError(`NAME: ${String(CorpusName.error)} (got ${got})`);
      }
    },
    run([name], _f, config) {
      const org = need(name, "NAME");
      const db = openDb(config.dataDir, stderrLogger);
      out(createOrg(db, org));
      db.close();
      // The organization exists only for a server using this directory: a terminal without the
      // server's KBQA_DATA_DIR creates it elsewhere, and its keys then answer 403 "unknown key".
      console.error(`kbqa org create: stored in the data directory ${resolve(config.dataDir)}; the server must use the same --data`);
      return 0;
    },
  },
  "org list": {
    usage: "org list",
    settings: [],
    help: "List organizations as a JSON array.",
    flags: [],
    dirs: { data: "existing" },
    run(_a, _f, config) {
      const db = openDb(config.dataDir, stderrLogger);
      out(listOrgs(db));
      db.close();
      return 0;
    },
  },
  "key add": {
    usage: "key add --org ORG_ID --public-key FILE.pem [--kid KID]",
    settings: [],
    help: "Register an RSA public key (at least 2048 bits) whose JWTs authenticate as the organization.",
    flags: ["org", "public-key", "kid"],
    dirs: { data: "existing" },
    run(_a, f, config) {
      const org = need(f.org, "--org ORG_ID");
      const file = need(f["public-key"], "--public-key FILE.pem");
      const kid = f.kid === undefined ? undefined : need(f.kid, "--kid KID");
      if (kid !== undefined && !KID.test(kid)) throw new UsageError(`--kid: ${KID_RULE} (got ${kid.length > 128 ? `${kid.length} characters` : `"${kid}"`})`);
      const db = openDb(config.dataDir, stderrLogger);
      try {
        if (!orgExists(db, org)) throw new CliFailure(`no organization with id ${org}`);
        out(addKey(db, org, readPublicKeyFile(file), kid));
        return 0;
      } catch (e) {
        if (e instanceof KeyError) throw new CliFailure(e.unreadable ? `--public-key: ${file} ${e.message}` : `key refused: ${e.message}`);
        throw e;
      } finally {
        db.close();
      }
    },
  },
  "key list": {
    usage: "key list [--org ORG_ID]",
    settings: [],
    help: "List registered keys (kid, orgId, active).",
    flags: ["org"],
    dirs: { data: "existing" },
    run(_a, f, config) {
      const org = f.org === undefined ? undefined : need(f.org, "--org ORG_ID");
      const db = openDb(config.dataDir, stderrLogger);
      try {
        if (org !== undefined && !orgExists(db, org)) throw new CliFailure(`no organization with id ${org}`);
        out(listKeys(db, org));
        return 0;
      } finally {
        db.close();
      }
    },
  },
  ...Object.fromEntries(
    (
      [
        ["deactivate", (db, kid) => setKeyActive(db, kid, false)],
        ["activate", (db, kid) => setKeyActive(db, kid, true)],
        ["delete", (db, kid) => deleteKey(db, kid)],
      ] as [string, (db: ReturnType<typeof openDb>, kid: string) => boolean][]
    ).map(([verb, act]) => [
      `key ${verb}`,
      {
        usage: `key ${verb} KID`,
        settings: [],
        help: `${verb[0]!.toUpperCase()}${verb.slice(1)} a key; takes effect on the server's next request.`,
        flags: [],
        args: ["KID"],
        dirs: { data: "existing" },
        run([kid], _f, config) {
          const k = need(kid, "KID");
          const db = openDb(config.dataDir, stderrLogger);
          try {
            if (!act(db, k)) throw new CliFailure(`no key with kid ${k}`);
            out(verb === "delete" ? { kid: k, deleted: true } : listKeys(db).find((x) => x.kid === k));
            return 0;
          } finally {
            db.close();
          }
        },
      } satisfies Command,
    ]),
  ),
  ...EXTRA_COMMANDS,
  version: {
    usage: "version",
    settings: [],
    help: "Print the version (also kbqa --version).",
    flags: [],
    run() {
      console.log(versionLine());
      return 0;
    },
  },
};

function versionLine(): string {
  return `kbqa ${VERSION}`;
}

const GLOBAL_FLAGS = FIELDS.map((f) => f.flag);

function usage(): string {
  const lines = Object.values(COMMANDS).map((c) => `  kbqa ${c.usage.padEnd(58)} ${c.help}`);
  const flags = FIELDS.map((f) => `  --${f.flag.padEnd(26)} ${f.env.padEnd(30)} ${f.help}${defaultNote(f)}`);
  return `kbqa — self-hosted knowledge-base question answering\n\nUsage: kbqa <command> [flags]\n\nCommands:\n${lines.join("\n")}\n\nFlags for every command (flag, environment variable, meaning):\n${flags.join("\n")}\n  --${"help".padEnd(26)} ${"".padEnd(30)} show help\n  --${"version".padEnd(26)} ${"".padEnd(30)} print the version\n`;
}

function findCommand(pos: string[]): [string, Command, string[]] | undefined {
  for (const n of [2, 1]) {
    const name = pos.slice(0, n).join(" ");
    if (COMMANDS[name]) return [name, COMMANDS[name]!, pos.slice(n)];
  }
  return undefined;
}

/** The configuration as a command that declared `settings` sees it: an undeclared one would be its default whatever the variable says, so reading it throws. */
function declaredOnly(config: Config, uses: ReadonlySet<keyof Config>): Config {
  return new Proxy(config, {
    get(target, key, receiver) {
      if (typeof key === "string" && Object.hasOwn(target, key) && !uses.has(key as keyof Config)) throw new Error(`bug: this command reads the setting ${key} without declaring it in its settings`);
      return Reflect.get(target, key, receiver);
    },
  });
}

/**
 * A word after a boolean flag that was meant as its value: one the command has no room for
 * (`org list --log-requests maybe`), or a boolean word that would otherwise be taken as an
 * argument against the operator's intent (`key delete --log-requests false K1`). `from` is the
 * index in `positional` of the first word that is an argument rather than a command name.
 */
function boolFlagValue(parsed: Parsed, from: number, roomFor: number): string | undefined {
  for (const [i, flag] of parsed.afterBoolFlag) {
    const word = parsed.positional[i]!;
    if (i < from || (i - from < roomFor && !isBooleanWord(word))) continue;
    return `--${flag} takes no separate value, and "${word}" follows it; write --${flag}=true or --${flag}=false (--${flag} alone is true)`;
  }
  return undefined;
}

/** The first word after a command's arguments, told with a hint when the command takes one argument that may hold spaces. */
function extraArgument(cmd: Command, rest: string[]): string | undefined {
  const names = cmd.args ?? [];
  if (names.some((n) => n.endsWith("...")) || rest.length <= names.length) return undefined;
  const extra = rest[names.length]!;
  if (names.length !== 1) return `unexpected argument "${extra}"`;
  return `unexpected argument "${extra}" (${names[0]} is one argument: quote a value with spaces, "${rest.join(" ")}")`;
}

export async function main(argv: string[]): Promise<number> {
  let parsed: Parsed;
  try {
    parsed = parseArgs(argv);
  } catch (e) {
    console.error(`kbqa: ${(e as Error).message}\n\n${usage()}`);
    return 2;
  }
  // Whatever else the line holds, as --help does: a version check must not depend on the rest.
  if (parsed.flags.version !== undefined) {
    if (parsed.flags.version !== true) {
      console.error("kbqa: --version takes no value");
      return 2;
    }
    console.log(versionLine());
    return 0;
  }
  const found = findCommand(parsed.positional);
  if (!found) {
    const known = new Set([...GLOBAL_FLAGS, ...Object.values(COMMANDS).flatMap((c) => c.flags), "help"]);
    const stranger = Object.keys(parsed.flags).find((f) => !known.has(f));
    if (stranger !== undefined) {
      console.error(`kbqa: unknown flag --${stranger}\n\n${usage()}`);
      return 2;
    }
    if (parsed.flags.help && parsed.positional.length === 0) {
      console.log(usage());
      return 0;
    }
    // A command group (`kbqa key`, `kbqa org --help`, `kbqa org delete x`): its subcommands,
    // not the whole usage, which buried them among every command and flag.
    const [groupName, sub] = parsed.positional;
    const group = Object.values(COMMANDS).filter((c) => groupName !== undefined && c.usage.startsWith(`${groupName} `));
    if (group.length) {
      const lines = group.map((c) => `  kbqa ${c.usage.padEnd(58)} ${c.help}`).join("\n");
      if (sub !== undefined) {
        console.error(`kbqa: unknown subcommand "${groupName} ${sub}"; the subcommands of "${groupName}" are:\n${lines}`);
        return 2;
      }
      if (parsed.flags.help) {
        console.log(`Commands of "${groupName}":\n${lines}\n\nEach also accepts every global flag (see kbqa --help).`);
        return 0;
      }
      console.error(`kbqa: "${groupName}" needs a subcommand:\n${lines}`);
      return 2;
    }
    // `kbqa --log-requests false serve`: the word is the flag's intended value, not a command.
    const boolValue = boolFlagValue(parsed, 0, Infinity);
    if (boolValue) {
      console.error(`kbqa: ${boolValue}`);
      return 2;
    }
    const what = parsed.positional.length ? `unknown command "${parsed.positional.join(" ")}"` : "no command given";
    console.error(`kbqa: ${what}\n\n${usage()}`);
    return 2;
  }
  const [name, cmd, rest] = found;
  if (parsed.flags.help) {
    console.log(`Usage: kbqa ${cmd.usage}\n\n${cmd.help}\n\nAlso accepts every global flag (see kbqa --help).`);
    return 0;
  }
  const usageError = (msg: string) => {
    console.error(`kbqa ${name}: ${msg}\n\nUsage: kbqa ${cmd.usage}`);
    return 2;
  };
  const unknown = Object.keys(parsed.flags).filter((f) => !GLOBAL_FLAGS.includes(f) && !cmd.flags.includes(f) && f !== "help");
  if (unknown.length) return usageError(`unknown flag --${unknown[0]}`);
  if (parsed.missingValue) return usageError(`--${parsed.missingValue} needs a value`);
  const names = cmd.args ?? [];
  const boolValue = boolFlagValue(parsed, parsed.positional.length - rest.length, names.some((n) => n.endsWith("...")) ? Infinity : names.length);
  if (boolValue) return usageError(boolValue);
  const extra = extraArgument(cmd, rest);
  if (extra) return usageError(extra);
  const empty = cmd.flags.find((f) => parsed.flags[f] === "");
  if (empty) return usageError(`--${empty} is empty`);
  const uses = cmd.settings && new Set<keyof Config>([...cmd.settings, ...(cmd.dirs?.data ? ["dataDir" as const] : []), ...(cmd.dirs?.models ? ["modelsDir" as const] : [])]);
  let config: Config;
  try {
    config = loadConfig(parsed.flags, process.env, process.cwd(), uses);
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`kbqa ${name}: ${e.message}`);
      return 2;
    }
    throw e;
  }
  try {
    const label = (key: "dataDir" | "modelsDir") => settingLabel(FIELDS.find((f) => f.key === key)!, parsed.flags);
    await cmd.checkArgs?.(rest);
    // The data directory holds every organization's documents, questions and answers, public
    // keys and the storage signing secret: what a command writes there (the directory itself,
    // SQLite, LanceDB, blobs, previews, and the workers' files, which inherit the mask) is the
    // running user's alone. With the usual umask 022 it was world-readable (0755 and 0644).
    if (cmd.dirs?.data) process.umask(0o077);
    if (cmd.dirs?.data) checkDir(label("dataDir"), config.dataDir, cmd.dirs.data);
    if (cmd.dirs?.models) checkDir(label("modelsDir"), config.modelsDir, "optional");
    return await cmd.run(rest, parsed.flags, uses ? declaredOnly(config, uses) : config);
  } catch (e) {
    if (e instanceof DataDirInUse || e instanceof NewerDataDir || e instanceof CliFailure || e instanceof NativeDirUnusable || (e as Error)?.name === "NativeDirUnusable") {
      console.error(`kbqa ${name}: ${(e as Error).message}`);
      return 1;
    }
    if (e instanceof UsageError) return usageError(e.message);
    if (e instanceof ModelFileError || (e as Error)?.name === "ModelFileError") {
      console.error(`kbqa ${name}: ${settingLabel(FIELDS.find((f) => f.key === "modelsDir")!, parsed.flags)}: ${(e as Error).message}`);
      return 1;
    }
    const access = cmd.dirs?.data ? dataDirOpenFailure(e, config.dataDir) : undefined;
    if (access) {
      console.error(`kbqa ${name}: ${settingLabel(FIELDS.find((f) => f.key === "dataDir")!, parsed.flags)}: ${access}`);
      return 1;
    }
    const volume = diagnoseStorage(e, config.dataDir);
    if (volume) {
      // An operator's condition, not a bug: one line naming the directory, no stack.
      console.error(`kbqa ${name}: the data directory ${config.dataDir} is ${volume === "full" ? "on a full disk" : "read-only"} (${(e as Error).message}); free space or make it writable (--data / KBQA_DATA_DIR)`);
      return 1;
    }
    console.error(`kbqa ${name}: ${(e as Error).stack ?? e}`);
    return 1;
  }
}

if (import.meta.main) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
