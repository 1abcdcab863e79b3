/**
 * Parse options and their resolution into the flat configuration the engine reads.
 * @module
 */
import { nanoid } from 'nanoid'
import { clineDialect, isTagName, type Dialect } from '../dialect.js'
import { TagstreamError } from '../errors.js'

/**
 * Options of {@link parseAssistantMessage} (and of the BlockParser, which adds its own).
 * Every robust option also works alone; `profile: 'robust'` turns them all on, and an option
 * given explicitly wins over the profile.
 * @example
 * ```ts
 * const opts: ParseOptions = { profile: 'robust', reasoningTags: ['thinking'], idGenerator: () => 'id', maxDiagnostics: 100 }
 * ```
 * @group Parsing
 */
export interface ParseOptions {
  /** Tag names; default {@link clineDialect}. */
  dialect?: Dialect
  /** `cline` (default): exactly the original parser. `robust`: every option below on. */
  profile?: 'cline' | 'robust'
  /** Makes tool call ids; default 8 characters from nanoid. */
  idGenerator?: () => string
  /** Tool tags inside Markdown code fences or inline code spans are text. */
  codeFences?: boolean
  /** Decode `&amp; &lt; &gt; &quot; &apos;` and numeric entities in parameter values. */
  decodeEntities?: boolean
  /** Hold back partial closing tags in values and partial opening tool tags in text while streaming. */
  hidePartialTags?: boolean
  /** Show a greedy parameter's whole text while its tool streams (SPEC 4). */
  greedyWhileStreaming?: boolean
  /** Top-level tags whose content becomes a `reasoning` block; robust uses `['thinking', 'think']`. */
  reasoningTags?: readonly string[] | false
  /** Mark a tool completed only by the end of the input with `truncated: true`. */
  truncation?: boolean
  /** Accept white space inside tag brackets (`< read_file >`, `</path >`). */
  lenientTags?: boolean
  /** Report diagnostics: `diagnostic` events and records on streams ({@link parseWithDiagnostics} always reports them). */
  diagnostics?: boolean
  /**
   * Most diagnostics reported for one message along its text (default 1000; a non-negative
   * integer, or `Infinity`). Past it, the rest are only counted, and one last diagnostic
   * `diagnostics-dropped` says how many were left out; the end-of-input ones (`unclosed-tool`,
   * `unclosed-param`, `truncated-open-tag`, a pending `ignored-content`) are always reported.
   * The same diagnostics for any chunking.
   */
  maxDiagnostics?: number
  /**
   * The text is the whole message, not a prefix of it: held-back fragments are released, open
   * blocks are completed (and marked `truncated` with that option). Default `false`, the
   * original's behaviour, where open blocks stay `partial: true`.
   */
  final?: boolean
}

/**
 * The flat, resolved configuration. @internal
 * @group Parsing
 */
export interface ResolvedOptions {
  dialect: Dialect
  idGenerator: () => string
  codeFences: boolean
  decodeEntities: boolean
  hidePartialTags: boolean
  greedyWhileStreaming: boolean
  reasoningTags: readonly string[]
  truncation: boolean
  lenientTags: boolean
  diagnostics: boolean
  maxDiagnostics: number
}

/**
 * Default of {@link ParseOptions.maxDiagnostics}. @internal
 * @group Parsing
 */
export const DEFAULT_MAX_DIAGNOSTICS = 1000

const defaultIds = (): string => nanoid(8)

/**
 * The profiles' reasoning tags, one frozen array each: the engine finds a dialect's tables by
 * them, and the same array every parse lets it skip rebuilding their key (tags.ts `tables`).
 */
const ROBUST_REASONING: readonly string[] = Object.freeze(['thinking', 'think'])
const NO_REASONING: readonly string[] = Object.freeze([])

function flag(v: unknown, name: string, dflt: boolean): boolean {
  if (v === undefined) return dflt
  if (typeof v !== 'boolean') {
    throw new TagstreamError('ERR_INVALID_OPTION', `option ${name} must be a boolean, got ${JSON.stringify(v)}`, { option: name })
  }
  return v
}

/**
 * @internal
 * @group Parsing
 */
export function resolveOptions(o: ParseOptions = {}): ResolvedOptions {
  const profile = o.profile ?? 'cline'
  if (profile !== 'cline' && profile !== 'robust') {
    throw new TagstreamError('ERR_INVALID_OPTION', `unknown profile ${JSON.stringify(profile)} (cline or robust)`, { option: 'profile' })
  }
  const robust = profile === 'robust'
  let reasoningTags: readonly string[] = robust ? ROBUST_REASONING : NO_REASONING
  if (o.reasoningTags === false) reasoningTags = NO_REASONING
  else if (o.reasoningTags !== undefined) {
    if (!Array.isArray(o.reasoningTags) || !o.reasoningTags.every(isTagName)) {
      throw new TagstreamError('ERR_INVALID_OPTION', 'option reasoningTags must be an array of tag names', { option: 'reasoningTags' })
    }
    reasoningTags = o.reasoningTags
  }
  const maxDiagnostics = o.maxDiagnostics === undefined ? DEFAULT_MAX_DIAGNOSTICS : o.maxDiagnostics
  if (typeof maxDiagnostics !== 'number' || !(maxDiagnostics === Infinity || (Number.isInteger(maxDiagnostics) && maxDiagnostics >= 0))) {
    throw new TagstreamError('ERR_INVALID_OPTION', `option maxDiagnostics must be a non-negative integer or Infinity, got ${typeof maxDiagnostics === 'number' ? String(maxDiagnostics) : typeof maxDiagnostics}`, { option: 'maxDiagnostics' })
  }
  if (o.idGenerator !== undefined && typeof o.idGenerator !== 'function') {
    throw new TagstreamError('ERR_INVALID_OPTION', 'option idGenerator must be a function', { option: 'idGenerator' })
  }
  return {
    dialect: o.dialect ?? clineDialect,
    idGenerator: o.idGenerator ?? defaultIds,
    codeFences: flag(o.codeFences, 'codeFences', robust),
    decodeEntities: flag(o.decodeEntities, 'decodeEntities', robust),
    hidePartialTags: flag(o.hidePartialTags, 'hidePartialTags', robust),
    greedyWhileStreaming: flag(o.greedyWhileStreaming, 'greedyWhileStreaming', robust),
    reasoningTags,
    truncation: flag(o.truncation, 'truncation', robust),
    lenientTags: flag(o.lenientTags, 'lenientTags', robust),
    diagnostics: flag(o.diagnostics, 'diagnostics', robust),
    maxDiagnostics,
  }
}
