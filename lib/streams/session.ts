/**
 * The streaming core shared by the BlockParser, `parseStream` and the web TransformStream:
 * bytes or strings in, diff records out. No stream machinery here, only the bookkeeping of
 * "what has the consumer seen" so each shell stays thin.
 * @internal
 * @module
 */
import type { Block, BlockDiff, Diagnostic, DiffRecord } from '../types.js'
import { TagstreamError } from '../errors.js'
import { Engine, type OpenField } from '../parse/engine.js'
import { resolveOptions, type ParseOptions, type ResolvedOptions } from '../parse/options.js'
import { applyDiff, diffBlock, diffBlocks, type AppendHint } from '../diff/diff.js'

/**
 * Options of the streaming parsers ({@link BlockParser}, {@link parseStream},
 * {@link createWebBlockParser}), on top of the {@link ParseOptions}.
 * @example
 * ```ts
 * const opts: StreamParseOptions = { reparse: 'resume', emit: 'diffs', maxBytes: 1 << 20, profile: 'robust' }
 * ```
 */
export interface StreamParseOptions extends Omit<ParseOptions, 'final'> {
  /**
   * `resume` (default): work proportional to the new text. `full`: re-parse the whole buffer
   * after every chunk (the original's way; same output, for checking and benchmarks).
   */
  reparse?: 'resume' | 'full'
  /** `diffs` (default): block diffs. `snapshots`: the whole block array after each change. */
  emit?: 'diffs' | 'snapshots'
  /** Complete every partial block when the input ends (default `true`). */
  completeOnEnd?: boolean
  /** Input limit in bytes (default 64 MiB); past it the stream fails with `ERR_MESSAGE_TOO_LARGE`. */
  maxBytes?: number
  /** Also put `{op: 'diagnostic', ...}` records among the diffs (default `false`). */
  diagnosticRecords?: boolean
}

/** What one step of a session produced. @internal */
export interface Step {
  records: (DiffRecord | Block[])[]
  diagnostics: Diagnostic[]
}

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024
const NONE: Diagnostic[] = []
/** The step of a chunk that changed nothing; shared, never mutated. */
const NOTHING: Step = Object.freeze({ records: Object.freeze([]) as unknown as DiffRecord[], diagnostics: NONE }) as Step

/** @internal */
export class DiffSession {
  private readonly o: ResolvedOptions
  private readonly full: boolean
  private readonly snapshots: boolean
  private readonly completeOnEnd: boolean
  private readonly maxBytes: number
  private readonly records: boolean
  private readonly decoder = new TextDecoder('utf-8')
  private bytes = 0
  private sawBytes = false
  private parts: string[] = []
  private partsLength = 0
  private ended = false

  // resume mode: the engine, and what the consumer has seen of it
  private engine: Engine
  private seenDone = 0
  private seenOpen: Block | null = null
  private seenField: OpenField | null = null
  private seenShape = -1
  /** Text appended to the open block since `seenOpen` was built. */
  private pending = ''
  private seenDiagnostics = 0

  // full mode: the last snapshot and the ids handed out, by tool ordinal
  private snapshot: Block[] = []
  private readonly ids: string[] = []

  constructor(options: StreamParseOptions = {}) {
    this.o = resolveOptions(options)
    const reparse = options.reparse ?? 'resume'
    const emit = options.emit ?? 'diffs'
    if (reparse !== 'resume' && reparse !== 'full') {
      throw new TagstreamError('ERR_INVALID_OPTION', `option reparse must be 'resume' or 'full', got ${JSON.stringify(reparse)}`, { option: 'reparse' })
    }
    if (emit !== 'diffs' && emit !== 'snapshots') {
      throw new TagstreamError('ERR_INVALID_OPTION', `option emit must be 'diffs' or 'snapshots', got ${JSON.stringify(emit)}`, { option: 'emit' })
    }
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES
    if (!(typeof maxBytes === 'number' && maxBytes >= 0)) {
      throw new TagstreamError('ERR_INVALID_OPTION', 'option maxBytes must be a non-negative number', { option: 'maxBytes' })
    }
    this.full = reparse === 'full'
    this.snapshots = emit === 'snapshots'
    this.completeOnEnd = options.completeOnEnd ?? true
    this.maxBytes = maxBytes
    this.records = options.diagnosticRecords ?? false
    this.engine = this.newEngine()
  }

  private newEngine(): Engine {
    if (!this.full) return new Engine(this.o)
    // a fresh parse must give each tool the id it had in the previous parse: tools before the
    // open one are complete and unchanged, so the k-th tool opened is the same call every time
    let k = 0
    const gen = this.o.idGenerator
    return new Engine({ ...this.o, idGenerator: () => (this.ids[k] ??= gen(), this.ids[k++]!) })
  }

  /** The text received so far. */
  get text(): string {
    if (this.parts.length > 1) this.parts = [this.parts.join('')]
    return this.parts[0] ?? ''
  }

  /** Keeps the received text; joins on a doubling schedule so it is not a list of 100k chunks. */
  private keepText(text: string): void {
    this.parts.push(text)
    this.partsLength += text.length
    if (this.parts.length > 256 && this.partsLength > 2 * (this.parts[0]?.length ?? 0)) {
      this.parts = [this.parts.join('')]
    }
  }

  /** The current snapshot. */
  get blocks(): Block[] {
    if (this.full) return this.snapshot.slice()
    const done = this.engine.done.slice(0, this.seenDone)
    const open = this.openSeen()
    if (open !== null) done.push(open)
    return done
  }

  /** Every diagnostic so far. */
  get diagnostics(): Diagnostic[] {
    return this.engine.diagnostics.slice(0, this.seenDiagnostics)
  }

  /** Byte count so far. */
  get byteCount(): number {
    return this.bytes
  }

  /** Takes one chunk. Throws a TagstreamError for a bad chunk or past `maxBytes`, having changed nothing. */
  push(chunk: unknown): Step {
    let text: string
    let size: number
    if (typeof chunk === 'string') {
      size = Buffer.byteLength(chunk, 'utf8')
      this.checkSize(size)
      // bytes of a character left unfinished by a Buffer chunk become U+FFFD
      const pending = this.sawBytes ? this.decoder.decode() : ''
      this.sawBytes = false
      text = pending.length > 0 ? pending + chunk : chunk
    } else if (chunk instanceof Uint8Array) {
      size = chunk.byteLength
      this.checkSize(size)
      text = this.decoder.decode(chunk, { stream: true })
      this.sawBytes = true
    } else {
      const what = chunk === null ? 'null' : typeof chunk === 'object' ? (chunk.constructor?.name ?? 'object') : typeof chunk
      throw new TagstreamError('ERR_INVALID_CHUNK', `BlockParser: chunk at byte ${this.bytes} is ${what}; expected a string, Buffer or Uint8Array`, { offset: this.bytes })
    }
    this.bytes += size
    if (text.length === 0) return NOTHING
    this.keepText(text)
    if (this.full) {
      this.engine = this.newEngine()
      this.engine.feed(this.text)
    } else {
      this.engine.feed(text)
    }
    return this.step(false)
  }

  private checkSize(size: number): void {
    if (this.bytes + size > this.maxBytes) {
      throw new TagstreamError(
        'ERR_MESSAGE_TOO_LARGE',
        `BlockParser: message exceeds maxBytes (${this.maxBytes}) at byte ${this.bytes + size}`,
        { maxBytes: this.maxBytes, offset: this.bytes },
      )
    }
  }

  /** The input ended: releases what was held, completes open blocks (unless `completeOnEnd: false`). */
  end(): Step {
    if (this.ended) return NOTHING
    const rest = this.decoder.decode()
    if (rest.length > 0) {
      this.keepText(rest)
      if (this.full) {
        this.engine = this.newEngine()
        this.engine.feed(this.text)
      } else {
        this.engine.feed(rest)
      }
    }
    this.ended = true
    this.engine.end()
    return this.step(true)
  }

  private step(atEnd: boolean): Step {
    const final = atEnd && this.completeOnEnd
    const diffs = this.full ? this.fullDiffs(final) : this.resumeDiffs(final)
    const found = this.engine.diagnostics
    let diagnostics: Diagnostic[] = NONE
    if (found.length > this.seenDiagnostics || atEnd) {
      diagnostics = found.slice(this.seenDiagnostics)
      this.seenDiagnostics = found.length
      if (atEnd) diagnostics.push(...this.engine.endDiagnostics())
    }
    let records: (DiffRecord | Block[])[] = diffs
    if (this.snapshots) records = diffs.length > 0 ? [this.blocks] : []
    if (this.records && diagnostics.length > 0) records = [...records, ...diagnostics.map((d): DiffRecord => ({ op: 'diagnostic', ...d }))]
    return records.length === 0 && diagnostics.length === 0 ? NOTHING : { records, diagnostics }
  }

  private fullDiffs(final: boolean): BlockDiff[] {
    const next = this.engine.blocks(final)
    const diffs = diffBlocks(this.snapshot, next)
    this.snapshot = next
    return diffs
  }

  /**
   * Only the blocks from the one the consumer saw open onwards can differ (complete blocks are
   * frozen). The common case, where only the open string grew, is answered from what the engine
   * says it gained, without building a block; the open block the consumer holds is then brought
   * up to date lazily (`pending`).
   */
  private resumeDiffs(final: boolean): BlockDiff[] {
    const e = this.engine
    const f = e.openField(final)
    const delta = f === null ? '' : f.field.take()
    const seen = this.seenField
    if (!final && f !== null && seen !== null && e.shape === this.seenShape && f.field === seen.field && f.path === seen.path) {
      const grown = delta.length > 0 ? delta + f.ext : f.ext
      if (grown.startsWith(seen.ext)) {
        this.seenField = f
        const text = grown.slice(seen.ext.length)
        if (text.length === 0) return []
        this.pending += text
        return [{ op: 'append', index: this.seenDone, path: f.path, text }]
      }
    }
    const prev = this.openSeen()
    const open = e.render(final)
    const done = e.done
    const out: BlockDiff[] = []
    let i = this.seenDone
    if (prev !== null) {
      const b = i < done.length ? done[i]! : open ?? undefined
      if (b === undefined) out.push({ op: 'truncate', length: i })
      else diffBlock(out, i, prev, b, i === done.length ? this.hint(i, f, delta) : undefined)
      i++
    }
    for (; i < done.length; i++) out.push({ op: 'add', index: i, block: done[i]! })
    if (open !== null && i === done.length) out.push({ op: 'add', index: i, block: open })
    this.seenDone = done.length
    this.seenOpen = open
    this.seenField = open === null ? null : f
    this.seenShape = e.shape
    return out
  }

  /** The open block as the consumer has it, with the appends sent since it was built. */
  private openSeen(): Block | null {
    if (this.pending.length > 0 && this.seenOpen !== null && this.seenField !== null) {
      this.seenOpen = applyDiff([this.seenOpen], { op: 'append', index: 0, path: this.seenField.path, text: this.pending })[0]!
    }
    this.pending = ''
    return this.seenOpen
  }

  private hint(index: number, f: OpenField | null, delta: string): AppendHint | undefined {
    const prev = this.seenField
    if (f === null || prev === null || prev.field !== f.field || prev.path !== f.path) return undefined
    const grown = delta.length > 0 ? delta + f.ext : f.ext
    if (!grown.startsWith(prev.ext)) return undefined
    return { index, path: f.path, text: grown.slice(prev.ext.length) }
  }
}
