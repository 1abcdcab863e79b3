/**
 * The parser flags shared by parse, replay, present and stats: --profile, --option, --dialect,
 * --ids. They become the library's options unchanged.
 */
import { readFileSync } from 'node:fs'
import { nanoid } from 'nanoid'
import { clineDialect, counterIds, defineDialect, TagstreamError, type Dialect, type DialectSpec, type StreamParseOptions } from 'tagstream'
import { choice, list, str, UsageError, type OptionSpec, type Parsed } from './args.js'

/** parseArgs definitions of the shared parser flags. */
export const parserFlags: OptionSpec = {
  profile: { type: 'string' },
  option: { type: 'string', multiple: true },
  dialect: { type: 'string' },
  ids: { type: 'string' },
}

/** Help text of the shared parser flags. */
export const parserFlagsHelp = `Parser options:
  --profile cline|robust   cline (default): exactly Cline's parser; robust: every option below
  --option NAME[=VALUE]    one robust option, repeatable: codeFences, decodeEntities,
                           hidePartialTags, greedyWhileStreaming, truncation, lenientTags,
                           diagnostics (adds {"op":"diagnostic"} records), reasoningTags=a,b,
                           maxDiagnostics=N (default 1000 per message)
  --dialect FILE.json      tag names: {"tools":[…],"params":[…],"readOnlyTools":[…],
                           "greedy":{"tool":["param"]},"extends":"cline"}`

const BOOLEAN_OPTIONS = ['codeFences', 'decodeEntities', 'hidePartialTags', 'greedyWhileStreaming', 'truncation', 'lenientTags', 'diagnostics'] as const

/** Serialisable form of the parser flags (crosses to worker threads). */
export interface ParserFlags {
  profile?: 'cline' | 'robust'
  options: Record<string, boolean | string[] | number>
  dialectFile?: string
}

/** Reads the parser flags. */
export function readParserFlags(p: Parsed): ParserFlags {
  const flags: ParserFlags = { options: {} }
  const profile = choice(p, 'profile', ['cline', 'robust'] as const)
  if (profile !== undefined) flags.profile = profile
  for (const o of list(p, 'option')) {
    const eq = o.indexOf('=')
    const name = eq < 0 ? o : o.slice(0, eq)
    const value = eq < 0 ? undefined : o.slice(eq + 1)
    if (name === 'reasoningTags') {
      flags.options.reasoningTags = value === undefined ? ['thinking', 'think'] : value.split(',').map((s) => s.trim()).filter((s) => s !== '')
    } else if (name === 'maxDiagnostics') {
      const n = value === 'Infinity' ? Infinity : Number(value)
      if (value === undefined || value.trim() === '' || !(Number.isInteger(n) || n === Infinity) || n < 0) {
        throw new UsageError(`--option maxDiagnostics takes a whole number >= 0 or Infinity, got ${JSON.stringify(value ?? '')}`, p.command)
      }
      flags.options.maxDiagnostics = n
    } else if ((BOOLEAN_OPTIONS as readonly string[]).includes(name)) {
      if (value !== undefined && value !== 'true' && value !== 'false') throw new UsageError(`--option ${name} takes true or false, got ${JSON.stringify(value)}`, p.command)
      flags.options[name] = value !== 'false'
    } else {
      throw new UsageError(`unknown --option ${JSON.stringify(name)} (${[...BOOLEAN_OPTIONS, 'reasoningTags', 'maxDiagnostics'].join(', ')})`, p.command)
    }
  }
  const dialect = str(p, 'dialect')
  if (dialect !== undefined) flags.dialectFile = dialect
  return flags
}

/** Which ids the command line asks for. */
export function readIds(p: Parsed, dflt: 'counter' | 'nanoid'): 'counter' | 'nanoid' {
  return choice(p, 'ids', ['counter', 'nanoid'] as const, dflt)
}

/** Loads a dialect file; a bad file is bad input (exit 1), named in the message. */
export function loadDialect(file: string): Dialect {
  let spec: unknown
  try {
    spec = JSON.parse(readFileSync(file, 'utf8'))
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    throw new TagstreamError('ERR_INVALID_DIALECT', e.code === undefined ? `${file}: not JSON (${e.message})` : `cannot read dialect ${file}: ${e.message}`, { file })
  }
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) {
    throw new TagstreamError('ERR_INVALID_DIALECT', `${file}: a dialect is an object {"tools", "params", …}`, { file })
  }
  const s = spec as Record<string, unknown>
  if (s.extends !== undefined && s.extends !== 'cline') {
    throw new TagstreamError('ERR_INVALID_DIALECT', `${file}: "extends" can only be "cline"`, { file })
  }
  try {
    return defineDialect({ ...(s as unknown as DialectSpec), extends: s.extends === 'cline' ? clineDialect : undefined })
  } catch (err) {
    throw new TagstreamError('ERR_INVALID_DIALECT', `${file}: ${(err as Error).message}`, { file })
  }
}

/** The library options for the flags; `diagnostics` also puts diagnostic records in the output. */
export function toParseOptions(flags: ParserFlags, ids: 'counter' | 'nanoid'): StreamParseOptions {
  const o: StreamParseOptions = { ...(flags.options as Partial<StreamParseOptions>) }
  if (flags.profile !== undefined) o.profile = flags.profile
  if (flags.dialectFile !== undefined) o.dialect = loadDialect(flags.dialectFile)
  // explicit both ways: the library's defaults differ (a BlockParser draws nanoids, a replay counts)
  o.idGenerator = ids === 'counter' ? counterIds() : () => nanoid(8)
  // asked for by name, diagnostics go into the output; the robust profile alone keeps it as is
  if (flags.options.diagnostics === true) o.diagnosticRecords = true
  return o
}
