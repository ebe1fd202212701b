/**
 * How a setting is declared (docs/development.md "Generated documentation"): one typed
 * declaration per environment variable holds its default, bounds or allowed values, unit and
 * meaning, and how its text is parsed. `loadConfig` (src/platform/config/load.ts) reads the variables only
 * through these declarations, and `npm run docs` writes docs/configuration.md's table from them,
 * so the two cannot disagree.
 */
import { bool, ConfigError, int, MAX_TIMER_SECONDS } from './parse.js';

/** One environment variable: its row of docs/configuration.md's table and its parser. */
export interface Setting<T = unknown> {
  /** The environment variable. */
  env: string;
  /** The default, as the table shows it. */
  default: string;
  /** The values allowed, as the table shows them (bounds, words), or `""` when the meaning says it. */
  allowed: string;
  /** Unit of the value (`seconds`, `days`, `KiB`, `count`, …), or `""` when it has none. */
  unit: string;
  /** What it sets, in Markdown, for the operator. */
  meaning: string;
  /**
   * Parses the variable from `env`, giving the default when it is unset or empty.
   * @throws {ConfigError} naming the variable and what is wrong with its value.
   */
  read(env: NodeJS.ProcessEnv): T;
}

/** A group of settings keyed by the name their value takes in the code. */
export type Settings = Readonly<Record<string, Setting>>;

/** The values a group of settings gives: the same keys, each with its setting's parsed type. */
export type Values<G extends Settings> = { -readonly [K in keyof G]: G[K] extends Setting<infer T> ? T : never };

/**
 * Reads every setting of `group` from `env`, in declaration order (the table's order), so that the
 * first unusable value is the one reported.
 * @throws {ConfigError} from the first setting whose value is unusable.
 */
export function readSettings<G extends Settings>(group: G, env: NodeJS.ProcessEnv): Values<G> {
  const values: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(group)) values[key] = setting.read(env);
  return values as Values<G>;
}

/** What every declaration states besides its parser. */
type Described = Omit<Setting, 'read' | 'default' | 'allowed'>;

/**
 * An integer setting in decimal digits (no `1e3`, no `0x10`), from `min` (1 unless stated) to `max`
 * (`MAX_TIMER_SECONDS` when `timer` is set: a timer waits for it; else unbounded).
 * @param d.default - the value when unset or empty; `shown` overrides how the table shows it.
 * @returns a setting whose `read` throws `ConfigError` for anything else (`int` in parse.ts).
 * @throws {Error} at declaration, when `default` lies outside its own bounds (a mistake in the code).
 */
export function integer(
  d: Described & { default: number; min?: number; max?: number; timer?: boolean; shown?: string },
): Setting<number> {
  const min = d.min ?? 1;
  const max = d.timer ? MAX_TIMER_SECONDS : d.max;
  if (d.default < min || d.default > (max ?? Number.MAX_SAFE_INTEGER))
    throw new Error(`${d.env}: the default ${d.default} lies outside ${min} to ${max}`);
  return {
    env: d.env,
    default: d.shown ?? String(d.default),
    allowed: max === undefined ? `≥ ${min}` : `${min} to ${max}`,
    unit: d.unit,
    meaning: d.meaning,
    read: (env) => int(env, d.env, d.default, min, max),
  };
}

/**
 * A boolean setting, `true` or `false`; false when unset or empty.
 * @returns a setting whose `read` throws `ConfigError` for any other word (`bool` in parse.ts).
 */
export function boolean(d: Omit<Described, 'unit'>): Setting<boolean> {
  return { ...d, default: 'false', allowed: '`true`, `false`', unit: 'boolean', read: (env) => bool(env, d.env) };
}

/**
 * One of a fixed list of words; `default` when unset or empty.
 * @returns a setting whose `read` throws `ConfigError` naming the words allowed.
 */
export function oneOf<const W extends string>(
  d: Described & { values: readonly W[]; default: NoInfer<W> },
): Setting<W> {
  return {
    env: d.env,
    default: d.default,
    allowed: d.values.map((word) => `\`${word}\``).join(', '),
    unit: d.unit,
    meaning: d.meaning,
    read: (env) => {
      const raw = env[d.env];
      if (!raw) return d.default;
      if (!(d.values as readonly string[]).includes(raw))
        throw new ConfigError(`${d.env} must be one of ${d.values.join(', ')}, got ${JSON.stringify(raw)}`);
      return raw as W;
    },
  };
}

/**
 * Any other setting: its text goes to `parse` (a parser of parse.ts), `undefined` when unset or empty.
 * @param d.default - how the table shows the default, which `parse` gives for `undefined`.
 * @returns a setting whose `read` throws what `parse` throws (`ConfigError`).
 */
export function text<T>(d: Described & { default: string; parse: (raw: string | undefined) => T }): Setting<T> {
  return {
    env: d.env,
    default: d.default,
    allowed: '',
    unit: d.unit,
    meaning: d.meaning,
    read: (env) => d.parse(env[d.env] || undefined),
  };
}
