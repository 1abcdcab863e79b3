/**
 * Command-line parsing on node:util's parseArgs, and the usage error that maps to exit code 2.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'

/** Bad command-line usage: printed with a hint to `--help`, exit code 2. */
export class UsageError extends Error {
  constructor(message: string, readonly command?: string) {
    super(message)
    this.name = 'UsageError'
  }
}

/** Option definitions, as parseArgs takes them. */
export type OptionSpec = NonNullable<ParseArgsConfig['options']>

/** Values and positionals of a parsed command line, and the command they are for. */
export interface Parsed {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>
  positionals: string[]
  /** The subcommand, so that an error about one of its options points at its own --help. */
  command: string
}

/** parseArgs in strict mode, its errors turned into UsageErrors naming the command. */
export function parseCommand(command: string, argv: string[], options: OptionSpec): Parsed {
  try {
    const r = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: true })
    return { values: r.values as Parsed['values'], positionals: r.positionals, command }
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/\. To specify a positional argument.*$/su, ''), command)
  }
}

/** A string option's value, or undefined. */
export function str(p: Parsed, name: string): string | undefined {
  const v = p.values[name]
  return typeof v === 'string' ? v : undefined
}

/** A boolean option's value. */
export function flag(p: Parsed, name: string): boolean {
  return p.values[name] === true
}

/** A repeatable string option's values. */
export function list(p: Parsed, name: string): string[] {
  const v = p.values[name]
  return Array.isArray(v) ? (v as string[]) : typeof v === 'string' ? [v] : []
}

/** A number option within bounds, or the default. */
export function num(p: Parsed, name: string, dflt: number, min: number, integer = false): number {
  const s = str(p, name)
  if (s === undefined) return dflt
  const n = Number(s)
  if (s.trim() === '' || !Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) {
    throw new UsageError(`--${name} must be ${integer ? 'an integer' : 'a number'} >= ${min}, got ${JSON.stringify(s)}`, p.command)
  }
  return n
}

/** One of a fixed set of values, or the default. */
export function choice<T extends string>(p: Parsed, name: string, choices: readonly T[], dflt: T): T
export function choice<T extends string>(p: Parsed, name: string, choices: readonly T[]): T | undefined
export function choice<T extends string>(p: Parsed, name: string, choices: readonly T[], dflt?: T): T | undefined {
  const s = str(p, name)
  if (s === undefined) return dflt
  if (!(choices as readonly string[]).includes(s)) throw new UsageError(`--${name} must be one of ${choices.join(', ')}, got ${JSON.stringify(s)}`, p.command)
  return s as T
}
