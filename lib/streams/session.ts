/**
 * The streaming core shared by the BlockParser, `parseStream` and the web TransformStream:
 * bytes or strings in, diff records out. No stream machinery here, only the bookkeeping of
 * "what has the consumer seen" so each shell stays thin.
 * @internal
 * @module
 */
import type { Block, BlockDiff, Diagnostic, DiffRecord } from '../types.js'
import { TagstreamError } from '../errors.js'
import { Engine } from '../parse/engine.js'
import { Rope } from '../parse/rope.js'
import { FLAT_VALUE, type Field, type TextRun } from '../parse/field.js'
import { resolveOptions, type ParseOptions, type ResolvedOptions } from '../parse/options.js'
import { applyDiff, diffBlock, diffBlocks, fieldAt, hasPrefix, pastPrefix, type AppendHint } from '../diff/diff.js'

/**
 * Options of the streaming parsers ({@link BlockParser}, {@link parseStream},
 * {@link createWebBlockParser}), on top of the {@link ParseOptions}.
 * @example
 * ```ts
 * const opts: StreamParseOptions = { reparse: 'resume', emit: 'diffs', maxBytes: 1 << 20, profile: 'robust' }
 * ```
 * @group Streams
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
  /**
   * Limit on the UTF-8 size of the text received (default 64 MiB; for valid UTF-8 input, the
   * bytes received). Past it the stream fails with `ERR_MESSAGE_TOO_LARGE`.
   */
  maxBytes?: number
  /** Also put `{op: 'diagnostic', ...}` records among the diffs (default `false`). */
  diagnosticRecords?: boolean
}

/**
 * Where a session delivers what it produces, as it produces it. @internal
 * @group Streams
 */
export interface SessionOutput {
  /** A record (a diff, a marker or diagnostic record, or a snapshot). */
  record(r: DiffRecord | Block[]): void
  /**
   * The record `{op: 'append', index, path, text}`, given by its parts while the session's
   * `lends` is set, for an append that is a run of the session's field `run`: an output that
   * takes the parts as they are (a BlockParser fused to a Presenter) then allocates no record
   * for the usual diff of a stream. Its text is the run of `run`'s value from `from`
   * (`run.coreSlice(from, from + text.length)`; the value only ever grows by appending). A
   * negative `from` stands for `-1 - from`, and says that the text goes past the value's end now
   * (`run.coreLength`): its rest is rendered past the value so far (the first characters of a
   * tag held back from it, say), and a later append with the same `run` whose `from` is where
   * this text ends says that this rest became the value's next characters, as they were shown.
   */
  append?(index: number, path: string, text: string, run: TextRun, from: number): void
  diagnostic(d: Diagnostic): void
}

/**
 * Default of `maxBytes` (64 MiB), shared by the parser sessions and the log readers. @internal
 * @group Streams
 */
export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024

/** UTF-8 size of a string; a loop beats the native call for the short chunks models stream. @internal */
function utf8Length(s: string): number {
  const n = s.length
  if (n > 64) return Buffer.byteLength(s, 'utf8')
  let bytes = n
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) continue
    if (c < 0x800) bytes += 1
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2 // a surrogate pair: 4 bytes for 2 code units
      i++
    } else bytes += 2
  }
  return bytes
}

/**
 * @internal
 * @group Streams
 */
export class DiffSession {
  /**
   * A session kept for the life of the process, so that a garbage collection between two
   * messages does not throw away the parser's optimised code. V8 drops a function's optimised
   * code when an object map it was specialised on dies, and the maps of a class's instances
   * (DiffSession, Engine, Field, Rope ...) die with its last instance: when no stream was open
   * at a full collection, the next stream ran its first chunks unoptimised while everything was
   * compiled again. One small session that has parsed a message with each kind of block keeps
   * those maps alive, for about 13 KB of heap. (A static field, not a module constant: V8 does not
   * keep a module's top-level constant that no function refers to.)
   */
  static readonly #keeper: DiffSession = DiffSession.#warm()

  static #warm(): DiffSession {
    const s = new DiffSession({}, { record() {}, diagnostic() {} })
    s.push('Kept <a> alive.\n\n<read_file>\n<path>a.ts</path>\n</read_file>\n\n<write_to_file>\n<path>b.ts</path>\n<content>\nx < y\n</content>\n</write_to_file>\n\n<execute_command>\n<command>ls</command>\n<requires_approval>false</requires_approval>\n</execute_command>\nDone')
    s.end()
    return s
  }

  /**
   * Appends that are runs of a field go to `out.append`, by their parts (the output has one):
   * set by a BlockParser while it is fused to a Presenter. Otherwise every record is an object:
   * the usual reader takes objects, and building the record at the output instead cost a
   * BlockParser piped into a Writable about 50 instructions a chunk (callgrind).
   */
  lends = false

  private readonly o: ResolvedOptions
  private readonly full: boolean
  private readonly snapshots: boolean
  private readonly completeOnEnd: boolean
  private readonly maxBytes: number
  private readonly records: boolean
  /** Resume mode sending diffs: the only mode of the shorter path for the usual chunk (`push`). */
  private readonly lean: boolean
  private readonly decoder = new TextDecoder('utf-8')
  /** Exact UTF-8 size of the text, kept once `exact` (past a third of maxBytes). */
  private bytes = 0
  private exact = false
  /** UTF-16 length of the text while not `exact`. */
  private chars = 0
  private sawBytes = false
  /** The text received, kept for `text` and for `reparse: 'full'`. */
  private readonly received = new Rope()
  private ended = false
  /** Diffs sent in the current step (snapshots mode sends one snapshot if any). */
  private changed = 0

  // resume mode: the engine, and what the consumer has seen of it
  private engine: Engine
  private seenDone = 0
  private seenOpen: Block | null = null
  /** The open block's growing field as last sent: value = field.core.slice(0, seenCore) + seenExt. */
  private seenField: Field | null = null
  private seenPath = ''
  private seenExt = ''
  private seenCore = 0
  private seenShape = -1
  /**
   * When several values of the open block grow at once (a param while a greedy view is open):
   * each one's field and rendering tail as last sent, by path (`growingHints`).
   */
  private readonly seenGrowing = new Map<string, { field: Field; ext: string }>()
  /** What `seenValue` keeps of the consumer's growing value, and whose it is. */
  private readonly seenRope = new Rope('', false)
  private seenRopeField: Field | null = null
  /** `seenOpen` lags behind appends sent since it was built. */
  private stale = false
  private seenDiagnostics = 0

  // full mode: the last snapshot and the ids handed out, by tool ordinal
  private snapshot: Block[] = []
  private readonly ids: string[] = []

  constructor(options: StreamParseOptions, private readonly out: SessionOutput) {
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
    this.lean = !this.full && !this.snapshots
    this.engine = this.newEngine()
  }

  private newEngine(): Engine {
    if (!this.full) return new Engine(this.o, this.received)
    // a fresh parse must give each tool the id it had in the previous parse: tools before the
    // open one are complete and unchanged, so the k-th tool opened is the same call every time
    let k = 0
    const gen = this.o.idGenerator
    return new Engine({ ...this.o, idGenerator: () => (this.ids[k] ??= gen(), this.ids[k++]!) })
  }

  /** The text received so far. */
  get text(): string {
    return this.received.value
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

  /** UTF-8 size of the text so far. */
  get byteCount(): number {
    return this.exact ? this.bytes : Buffer.byteLength(this.text, 'utf8')
  }

  /**
   * Checks `maxBytes` before taking `text`. A UTF-16 unit is at most 3 UTF-8 bytes, so while
   * three times the length stays under the limit nothing is counted at all; past a third of the
   * limit every chunk is counted exactly.
   */
  private admit(text: string): void {
    if (!this.exact) {
      if (3 * (this.chars + text.length) <= this.maxBytes) {
        this.chars += text.length
        return
      }
      this.bytes = this.byteCount
      this.exact = true
    }
    const size = utf8Length(text)
    if (this.bytes + size > this.maxBytes) {
      throw new TagstreamError(
        'ERR_MESSAGE_TOO_LARGE',
        `BlockParser: message exceeds maxBytes (${this.maxBytes}) at byte ${this.bytes + size}`,
        { maxBytes: this.maxBytes, offset: this.bytes },
      )
    }
    this.bytes += size
  }

  /** The error for a chunk that is not text or bytes. */
  invalidChunk(chunk: unknown): TagstreamError {
    const what = chunk === null ? 'null' : typeof chunk === 'object' ? (chunk.constructor?.name ?? 'object') : typeof chunk
    const at = this.byteCount
    return new TagstreamError('ERR_INVALID_CHUNK', `BlockParser: chunk at byte ${at} is ${what}; expected a string, Buffer or Uint8Array`, { offset: at })
  }

  /** Takes one chunk. Throws a TagstreamError for a bad chunk or past `maxBytes`, having changed nothing. */
  push(chunk: unknown): void {
    const seen = this.seenField
    // (flags and the call's result compared with `true`: V8 tests the truthiness of a value it does
    // not know to be a boolean with a generic sequence, about ten instructions when it is true)
    if (seen !== null && typeof chunk === 'string' && this.lean === true && this.seenExt.length === 0 && this.sawBytes !== true && this.engine.takesWhole(chunk, seen) === true) {
      // the usual streamed chunk, which only grows the value the consumer saw growing: fed by
      // the engine's shorter path and sent as an append without asking the engine what changed
      // admit's first test, here: the call is not inlined (its error path is too big)
      if (!this.exact && 3 * (this.chars + chunk.length) <= this.maxBytes) this.chars += chunk.length
      else this.admit(chunk)
      this.received.push(chunk)
      const e = this.engine
      e.grow(chunk)
      if (e.shape !== this.seenShape) return this.step(false) // a greedy view opened
      const from = this.seenCore
      const delta = seen.take()
      const to = this.seenCore = seen.coreLength
      if (delta.length === 0) return
      this.stale = true
      // the delta is what the core gained since the last take; of the same length as what it
      // gained since the consumer last saw it, it is that run of the core
      if (this.lends === true && delta.length === to - from) this.out.append!(this.seenDone, this.seenPath, delta, seen, from)
      else this.out.record({ op: 'append', index: this.seenDone, path: this.seenPath, text: delta })
      return
    }
    let text: string
    if (typeof chunk === 'string') {
      text = chunk
      if (this.sawBytes) {
        // bytes of a character left unfinished by a Buffer chunk become U+FFFD
        const pending = this.decoder.decode()
        this.sawBytes = false
        if (pending.length > 0) text = pending + chunk
      }
    } else if (chunk instanceof Uint8Array) {
      text = this.decoder.decode(chunk, { stream: true })
      this.sawBytes = true
    } else {
      throw this.invalidChunk(chunk)
    }
    if (text.length === 0) return
    this.take(text)
    this.step(false)
  }

  private take(text: string): void {
    this.admit(text)
    this.received.push(text)
    if (this.full) {
      this.engine = this.newEngine()
      this.engine.feed(this.text)
    } else {
      this.engine.feed(text)
    }
  }

  /** The input ended: releases what was held, completes open blocks (unless `completeOnEnd: false`). */
  end(): void {
    if (this.ended) return
    const rest = this.decoder.decode()
    if (rest.length > 0) this.take(rest)
    this.ended = true
    this.engine.end()
    this.step(true)
  }

  private step(atEnd: boolean): void {
    const final = atEnd && this.completeOnEnd
    this.changed = 0
    if (this.full) this.fullDiffs(final)
    else this.resumeDiffs(final)
    if (this.snapshots && this.changed > 0) this.out.record(this.blocks)
    const found = this.engine.diagnostics
    if (found.length > this.seenDiagnostics || atEnd) {
      const diagnostics = found.slice(this.seenDiagnostics)
      this.seenDiagnostics = found.length
      if (atEnd) diagnostics.push(...this.engine.endDiagnostics())
      for (const d of diagnostics) {
        this.out.diagnostic(d)
        if (this.records) this.out.record({ op: 'diagnostic', ...d })
      }
    }
  }

  private send(d: BlockDiff): void {
    this.changed++
    if (!this.snapshots) this.out.record(d)
  }

  private fullDiffs(final: boolean): void {
    const next = this.engine.blocks(final)
    for (const d of diffBlocks(this.snapshot, next)) this.send(d)
    this.snapshot = next
  }

  /**
   * Only the blocks from the one the consumer saw open onwards can differ (complete blocks are
   * frozen). The common case, where only the open string grew, is answered from what the engine
   * says it gained, without building a block; the open block the consumer holds is then brought
   * up to date lazily (`stale`, `openSeen`).
   */
  private resumeDiffs(final: boolean): void {
    const e = this.engine
    const f = e.openField(final)
    // what the open string gained since the consumer saw it, if it is the same string and grew
    let appended: string | null = null
    let delta = ''
    if (f !== null) {
      const field = f.field
      delta = field.take()
      // after a chunk where several values grew, what was sent of each is in seenGrowing
      const was = this.seenField === null && this.seenGrowing.size > 0 ? this.seenGrowing.get(f.path) : undefined
      if (was !== undefined ? field === was.field : field === this.seenField && f.path === this.seenPath) {
        const ext = f.ext
        const seen = was !== undefined ? was.ext : this.seenExt
        // the usual chunk: nothing was held back at the last diff, so the gain is the delta and
        // what is held back now (startsWith('') and slice(0) on their sum, without the calls)
        if (seen.length === 0) appended = ext.length === 0 ? delta : delta + ext
        else appended = pastPrefix(delta, ext, seen)
      }
    }
    if (appended !== null && !final && e.shape === this.seenShape) {
      const seen = this.seenExt
      const core = this.seenCore
      const field = f!.field
      this.seenExt = f!.ext
      this.seenCore = field.coreLength
      if (appended.length === 0) return
      this.stale = true
      this.changed++
      if (this.snapshots) return
      // the same field as last time, and the delta is all the core gained since then (as in
      // `push`): the consumer's ext was its first characters, and the append is the rest of that
      // gain followed by the new ext
      const gained = this.seenCore - core
      if (this.lends === true && field === this.seenField && delta.length === gained && seen.length <= gained) {
        const from = core + seen.length
        this.out.append!(this.seenDone, f!.path, appended, field, f!.ext.length === 0 ? from : -1 - from)
      } else this.out.record({ op: 'append', index: this.seenDone, path: f!.path, text: appended })
      return
    }
    let hint: AppendHint | AppendHint[] | undefined
    if (f !== null) {
      if (this.seenGrowing.size > 0) this.seenGrowing.clear()
      if (appended !== null) hint = { index: this.seenDone, path: f.path, text: appended }
    } else hint = this.growingHints(e, final)
    const done = e.done
    // the consumer's open block lags behind the appends sent since it was built (`stale`); when
    // the hint covers the one value they grew and the block is still open, the differ never reads
    // that value, so the block is not rebuilt (rebuilding it after every shape change of a long
    // greedy view made a stream quadratic)
    const covered = this.stale && appended !== null && f !== null && this.seenDone === done.length
    const prev = covered ? this.seenOpen : this.openSeen()
    const open = e.render(final)
    const out: BlockDiff[] = []
    let i = this.seenDone
    if (prev !== null) {
      const b = i < done.length ? done[i]! : open ?? undefined
      if (b === undefined) out.push({ op: 'truncate', length: i })
      else diffBlock(out, i, prev, b, (i === done.length ? hint : undefined) ?? this.closingHint(b))
      i++
    }
    for (; i < done.length; i++) out.push({ op: 'add', index: i, block: done[i]! })
    if (open !== null && i === done.length) out.push({ op: 'add', index: i, block: open })
    this.seenDone = done.length
    this.seenOpen = open
    this.stale = false
    this.seenShape = e.shape
    if (open !== null && f !== null) {
      this.seenField = f.field
      this.seenPath = f.path
      this.seenExt = f.ext
      this.seenCore = f.field.coreLength
    } else {
      this.seenField = null
      this.seenPath = ''
    }
    for (const d of out) this.send(d)
  }

  /**
   * The block the consumer saw open, as `b` now: if its value at the path seen growing is that
   * field's finished value (the same string, as the engine stores it when the value closes), what
   * it gained after what the consumer saw, from the field's parts, so that the differ does not
   * compare the whole value (comparing, or cutting, a value made of pieces flattens it: two
   * copies of a 1.6 MB tool content when it closed, in a 2 MB stream).
   */
  private closingHint(b: Block): AppendHint | undefined {
    const field = this.seenField
    if (field === null) return undefined
    // (checked before the block is looked at: this runs at every chunk that changes more than an
    // append.) A value not read yet is not finished; a short one is made flat when finished, and
    // the differ compares a flat value at less cost than this would
    const value = field.valueRead
    if (value === null || value.length <= FLAT_VALUE) return undefined
    const v = fieldAt(b, this.seenPath)
    if (v === undefined || v.length !== value.length || v !== value) return undefined
    // the consumer saw core[0, seenCore) + seenExt; the value is core + held, core only grew
    const rest = field.coreSlice(this.seenCore, field.coreLength) + field.ext('')
    const seen = this.seenExt
    return hasPrefix(rest, seen) ? { index: this.seenDone, path: this.seenPath, text: rest.slice(seen.length) } : undefined
  }

  /**
   * What each growing value gained since the last chunk, when several grow at once, so that the
   * differ compares no long value (whole values compared after every chunk made such a stream
   * quadratic). A value is hinted only if its field is the one sent last time and its rendering
   * only grew; the others are compared.
   */
  private growingHints(e: Engine, final: boolean): AppendHint[] | undefined {
    const now = e.growingFields(final)
    const seen = this.seenGrowing
    if (now.length === 0 && seen.size === 0) return undefined
    const hints: AppendHint[] = []
    for (const g of now) {
      const delta = g.field.take()
      // after a chunk where one value grew, what was sent of it is seenField's
      const was = seen.size > 0 ? seen.get(g.path) : g.path === this.seenPath && this.seenField !== null ? { field: this.seenField, ext: this.seenExt } : undefined
      if (was === undefined || was.field !== g.field) continue
      const text = pastPrefix(delta, g.ext, was.ext)
      if (text !== null) hints.push({ index: this.seenDone, path: g.path, text })
    }
    seen.clear()
    for (const g of now) seen.set(g.path, { field: g.field, ext: g.ext })
    return hints
  }

  /** The open block as the consumer has it: rebuilt from the field's prefix after fast appends. */
  private openSeen(): Block | null {
    if (this.stale && this.seenOpen !== null && this.seenField !== null) {
      const value = this.seenValue(this.seenField) + this.seenExt
      this.seenOpen = applyDiff([this.seenOpen], { op: 'set', index: 0, path: this.seenPath, value })[0]!
    }
    this.stale = false
    return this.seenOpen
  }

  /**
   * `field.core.slice(0, seenCore)`, kept from one rebuild to the next: each rebuild adds what
   * the field gained since the last one (a core only grows), so reading `blocks` after every
   * chunk costs what arrived, not the whole value each time.
   */
  private seenValue(field: Field): string {
    const kept = this.seenRope
    if (this.seenRopeField !== field) {
      kept.reset()
      this.seenRopeField = field
    }
    if (kept.length < this.seenCore) kept.push(field.coreSlice(kept.length, this.seenCore))
    return kept.value
  }
}
