/**
 * Presenter: the Writable that wires the presentation's parts (snapshot, display, cadence, tool
 * runner) to a stream of block diffs, and owns the cursor, backpressure, the serial task queue
 * and the drain after an interrupt (SPEC 7).
 * @module
 */
import { Writable, type Readable } from 'node:stream'
import type { Block, BlockDiff, ToolUseBlock } from '../types.js'
import { TagstreamError } from '../errors.js'
import { clineDialect } from '../dialect.js'
import { diffBlocks } from '../diff/diff.js'
import { checkSnapshot, invalidDiff } from '../diff/validate.js'
import { Cadence } from '../present/cadence.js'
import { Display, type SayMessage } from '../present/display.js'
import { isThenable, type Maybe } from '../present/maybe.js'
import type { TextRun } from '../parse/field.js'
import { Snapshot } from '../present/snapshot.js'
import { ToolRunner, type AttemptEnd, type InterruptInfo, type ToolResult } from '../present/tools.js'
import { BlockParser } from './block-parser.js'
import { DiffSession } from './session.js'
import { InterruptError, type PresenterEvents, type PresenterListener, type PresenterOptions } from '../present/presenter-api.js'

export type { SayMessage } from '../present/display.js'
export { INTERRUPT_NOTES } from '../present/tools.js'
export type { InterruptInfo, ToolContext, ToolOutcome, ToolResult, ToolStatus } from '../present/tools.js'
export { InterruptError, type PresenterEvents, type PresenterListener, type PresenterOptions } from '../present/presenter-api.js'

/** Node's AbortError shape (it does not export the class). */
function abortError(cause: unknown): Error {
  const err = new Error('The operation was aborted', { cause }) as Error & { code: string }
  err.name = 'AbortError'
  err.code = 'ABORT_ERR'
  return err
}

type Callback = (err?: Error | null) => void
const WRITE = 0
const WRITEV = 1
const END = 2
const TIMER = 3
/** A record taken by `write` itself, past the Writable's buffer: counted in no `writableLength`. */
const DIRECT = 4
type TaskKind = typeof WRITE | typeof WRITEV | typeof END | typeof TIMER | typeof DIRECT

/**
 * A Writable in object mode that consumes the diffs of a {@link BlockParser} (SPEC 7): it keeps
 * the block snapshot and walks it with a cursor that only moves past complete blocks, showing
 * text through `say` and running complete tool calls through `executeTool`, strictly one at a
 * time and in order. The write callback fires only once a diff has been presented (tools
 * included), so a tool waiting for approval pauses the pipeline and memory stays bounded by the
 * streams' highWaterMarks. Diffs that pile up meanwhile are applied together, with one UI update
 * per block.
 *
 * Events:
 * - `text` ({@link SayMessage}): each update also given to `say`;
 * - `tool` ({@link ToolUseBlock}): a complete tool block is about to be executed;
 * - `result` ({@link ToolResult}): a result was recorded (any status);
 * - `interrupt` ({@link InterruptInfo}): case 3 or 4 of SPEC 7 happened; emitted as soon as the
 *   tool's result is recorded, whatever follows. Every later tool call that was already parsed
 *   gets a `skipped` result (recorded after this event, before `ready`), whatever the streams
 *   buffered: the presenter stops the
 *   {@link BlockParser} piped into it ({@link BlockParser.stopParsing}: nothing more is parsed,
 *   so the source is held back) and reads, without presenting them, the diffs produced before
 *   the interrupt (those in its own buffer and in the parser's readable side), recording a
 *   `skipped` result for each tool block in them, partial ones included. Which calls get a
 *   result therefore depends on the message and on where its chunks were cut, not on
 *   `highWaterMark`s. The rest of the input is never read. (With another stream between the
 *   parser and the presenter, only the presenter's own buffer is read: that stream cannot be
 *   stopped.)
 * - `ready` (`ToolResult[]`): every block is handled and the results are final: once the input
 *   ended, or after an `interrupt` once those diffs were read. Comes before `finish` (or before
 *   the teardown, see {@link InterruptError}).
 *
 * Records besides diffs: `{op:'diagnostic'}` is ignored; a `Block[]` snapshot (a parser with
 * `emit: 'snapshots'`) is diffed against the current one. `{op:'message'}` and `{op:'end'}`
 * (replays of several messages) end the current message (a block still partial is handled as at
 * the end of input) and start a fresh one: a new snapshot and cursor, and the one-tool rule
 * applies per message. In such a stream an interrupt ends only the current message (its later
 * tools get `skipped` results) and the presenter reads on; `ready` fires at the end of the input.
 * `results` accumulate over all messages.
 *
 * A tool block with `truncated: true`, or one still partial when the input ends, is never run;
 * it gets an `error` result saying the call was cut off (for a native call, `isNativeToolCall`:
 * that its arguments were incomplete). Native calls otherwise run as tag calls do: the same
 * executor, one-tool, rejection and checkpoint rules.
 *
 * Errors (a diff that does not apply: `ERR_INVALID_DIFF`; a failing `say`/`onToolPartial`; an
 * abort) destroy the stream; nothing throws out of `write()`.
 * @example
 * ```ts
 * import { pipeline } from 'node:stream/promises'
 * import { createBlockParser, createPresenter, InterruptError } from 'tagstream'
 *
 * const presenter = createPresenter({
 *   say: ({ content, partial }) => ui.showText(content, partial),
 *   executeTool: async (block, { signal }) => {
 *     if (!(await ui.approve(block))) return { content: 'The user denied this operation.', rejected: true }
 *     return tools[block.name](block.params, signal)
 *   },
 * })
 * try {
 *   await pipeline(modelStream, createBlockParser(), presenter)
 * } catch (err) {
 *   if (!(err instanceof InterruptError)) throw err
 * }
 * console.log(presenter.results)
 * ```
 * @group Presenter
 */
export class Presenter extends Writable {
  /**
   * A Presenter kept for the life of the process, for the reason given at DiffSession's keeper:
   * V8 drops optimised code when a map it was specialised on dies, and the maps of a Presenter and
   * of its parts (snapshot, display, tool views) die with the last Presenter, so that a garbage
   * collection between two messages sent the next one's diffs through unoptimised code (measured:
   * a 200 KB stream behind a Presenter took 14–17 ms instead of 5). This one has presented a
   * message with each kind of block, in small chunks, through the usual write path.
   */
  static readonly #keeper: Presenter = Presenter.#warm()

  static #warm(): Presenter {
    const p = new Presenter({ say() {}, onToolPartial() {}, executeTool: () => '', parallelToolCalls: true })
    const records: unknown[] = []
    const s = new DiffSession({}, { record: (r) => { records.push(r) }, diagnostic() {} })
    const m = 'Kept <a> alive.\n<thinking>plan</thinking>\n<read_file>\n<path>a.ts</path>\n</read_file>\n\n<write_to_file>\n<path>b.ts</path>\n<content>\nx < y\n</content>\n</write_to_file>\nDone'
    for (let i = 0; i < m.length; i += 5) s.push(m.slice(i, i + 5))
    s.end()
    for (const r of records) p.write(r)
    p.end()
    return p
  }

  private readonly signal: AbortSignal | undefined
  private readonly onAbort: (() => void) | undefined

  /** The current message's blocks (the parts read them; `take`, `finishLeftover` and `newMessage` change them). */
  private readonly snap: Snapshot = new Snapshot()
  private readonly cadence: Cadence
  private readonly display: Display
  private readonly tools: ToolRunner
  /** The cursor: index of the block being presented; every block before it is handled. */
  private index = 0
  /** A stream of several messages (a `message` record was seen): an interrupt ends only its message. */
  private marked = false
  /** The current message's interrupt: nothing after it is presented (read once per diff). */
  private stopped: InterruptInfo | null = null

  private tearDown = false
  private readyEmitted = false
  /** The stream piped into this one (from its `pipe` event), stopped at an interrupt if it is a BlockParser. */
  private upstream: Readable | null = null
  /** After an interrupt: the diffs produced before it are still read, for their `skipped` results. */
  private draining = false
  /** How many records of the drain are still to come (`Infinity`: until the end of input). */
  private drainLeft = 0
  /** Records of the task in flight (Writable counts them in `writableLength` until its callback). */
  private inflight = 0
  /** A task is being presented (synchronously, or awaiting a hook or tool): the next one waits. */
  private busy = false
  /** `write` may present a record itself when the Writable is idle (`highWaterMark` > 1: see `write`). */
  private readonly direct: boolean
  /**
   * The Writable's state was found idle by `write` (nothing buffered, not corked, ended, destroyed
   * or failed) and nothing has changed it since: `cork`, `end` and `destroy` clear this. Its own
   * `write` need not: it holds a record past the call only while a presentation is in flight
   * (`busy`, checked first) or while corked. Reading that state takes five getters, which V8 leaves
   * out of line once `write` is inlined into the upstream's `pipe` handler: about 160 of the
   * Presenter's instructions a diff (callgrind), paid now only on the first record after a change.
   */
  private idle = false
  /** The callback of a record `write` presented itself: only an error has somewhere to go. */
  private readonly directDone: Callback = (err) => { if (err) this.destroy(err) }
  private readonly waiting: { kind: TaskKind; arg: unknown; done: Callback }[] = []
  /** Whether there is a `text` listener, as last counted (`null`: to be counted; see `textListened`). */
  private hasText: boolean | null = null
  private readonly forgetText = (event: string | symbol): void => {
    if (event === 'text') this.hasText = null
  }
  /** An attempt at the cursor's tool is over: the cursor moves on, and the message may stop. */
  private readonly toolDone = (end: AttemptEnd): void => {
    this.moveOn()
    if (end !== null) this.interrupt(end)
  }

  /** @param options - see {@link PresenterOptions} */
  constructor(options: PresenterOptions) {
    if (options === null || typeof options !== 'object' || typeof options.executeTool !== 'function') {
      throw new TagstreamError('ERR_INVALID_OPTION', 'Presenter: option executeTool (a function) is required', { option: 'executeTool' })
    }
    const cadenceMs = options.cadenceMs ?? 0
    if (!(typeof cadenceMs === 'number' && cadenceMs >= 0 && Number.isFinite(cadenceMs))) {
      throw new TagstreamError('ERR_INVALID_OPTION', 'Presenter: option cadenceMs must be a finite number >= 0', { option: 'cadenceMs' })
    }
    for (const name of ['say', 'onToolPartial'] as const) {
      if (options[name] !== undefined && typeof options[name] !== 'function') {
        throw new TagstreamError('ERR_INVALID_OPTION', `Presenter: option ${name} must be a function`, { option: name })
      }
    }
    const readOnly = options.readOnlyTools ?? (options.dialect ?? clineDialect).readOnlyTools
    if (!Array.isArray(readOnly)) {
      throw new TagstreamError('ERR_INVALID_OPTION', 'Presenter: option readOnlyTools must be an array of tool names', { option: 'readOnlyTools' })
    }
    if (options.checkpoint !== undefined && !isThenable(options.checkpoint)) {
      throw new TagstreamError('ERR_INVALID_OPTION', 'Presenter: option checkpoint must be a promise', { option: 'checkpoint' })
    }
    super({ objectMode: true, highWaterMark: options.highWaterMark ?? 16 })
    this.direct = this.writableHighWaterMark > 1
    this.cadence = new Cadence(cadenceMs, () => {
      if (this.destroyed) return
      this.serial(TIMER, null, (err) => { if (err) this.destroy(err) })
    })
    this.display = new Display(this.snap, this.cadence, { say: options.say, onToolPartial: options.onToolPartial, cleanText: options.cleanText ?? true }, this)
    this.tools = new ToolRunner({
      executeTool: options.executeTool,
      parallel: options.parallelToolCalls ?? false,
      readOnly: new Set(readOnly),
      checkpoint: options.checkpoint,
    }, this)
    this.on('pipe', (src: Readable) => {
      this.upstream = src
      if (src instanceof BlockParser) src.fuse(this)
    })
    this.on('unpipe', (src: Readable) => this.unpiped(src))
    this.trackTextListeners()
    this.signal = options.signal
    if (this.signal !== undefined) {
      const signal = this.signal
      this.onAbort = () => this.destroy(abortError(signal.reason))
      if (signal.aborted) process.nextTick(this.onAbort)
      else signal.addEventListener('abort', this.onAbort, { once: true })
    }
  }

  /** Tool results so far, in message order (a copy). Still readable after an error or abort. */
  get results(): ToolResult[] {
    return this.tools.results.slice()
  }

  /** The current message's blocks, as the diffs so far add up to (copies). */
  get blocks(): Block[] {
    return this.snap.copy()
  }

  /** Index of the block being presented: every block before it is complete and handled. */
  get cursor(): number {
    return this.index
  }

  /** The interrupt that happened, if any (the last one, in a stream of several messages). */
  get interrupted(): InterruptInfo | null {
    return this.tools.last
  }

  // ---- Writable ----------------------------------------------------------------------------

  /**
   * Writes a record (a diff, a snapshot or a marker), as a Writable's `write` does. When nothing
   * is queued, in flight, corked, ended or failed, the record is presented at once, without the
   * Writable's buffer, callback and after-write tick (most of the cost of a write, once per
   * diff). The outcome is the Writable's: an idle Writable too hands the record to `_write` at
   * once, and returns `true` whenever that completes synchronously, or goes async with
   * `highWaterMark` > 1. If the presentation goes async (a hook's or a tool's promise), the
   * Writable is corked until it settles, so the records that follow are buffered (counted in
   * `writableLength`, against `highWaterMark`) and come together to `_writev` (SPEC 7.10), as
   * they would behind a `_write` still running; the one difference is that the record in flight
   * is not counted in `writableLength`. With a callback, an encoding, or `highWaterMark` 0 or 1
   * (where a record in flight makes `write` return `false`), it is the Writable's own `write`.
   * @internal
   */
  override write(chunk: unknown, callback?: (error: Error | null | undefined) => void): boolean
  override write(chunk: unknown, encoding: BufferEncoding, callback?: (error: Error | null | undefined) => void): boolean
  override write(chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
    if (encoding === undefined && callback === undefined && chunk !== null && this.offer(chunk)) return true
    return super.write(chunk, encoding as BufferEncoding, callback as Callback)
  }

  /**
   * Presents `record` at once, as `write` does when the Writable is idle, and returns true; or
   * returns false, having done nothing, when `write` must hand it to the Writable (to buffer it,
   * or to refuse it). Also how a {@link BlockParser} piped into this stream hands over its
   * records directly (see {@link BlockParser.fuse}).
   * @internal
   */
  offer(record: unknown): boolean {
    // flags compared with `true`: see the Display's note on V8's truthiness tests
    if (this.direct !== true || this.busy === true) return false
    if (this.idle !== true && this.becameIdle() !== true) return false
    if (this.grow(record) !== true) this.serial(DIRECT, record, this.directDone)
    return true
  }

  /**
   * `offer` of the record `{op: 'append', index, path, text}`, by its parts: how the fused
   * BlockParser hands over an append that is a run of its field `run` from `from` (see
   * {@link TextRun}). The record is made only if the append is not the growth `grow` presents.
   * @internal
   */
  offerAppend(index: number, path: string, text: string, run: TextRun, from: number): boolean {
    if (this.direct !== true || this.busy === true) return false
    if (this.idle !== true && this.becameIdle() !== true) return false
    if (this.growBy(index, path, text, run, from) !== true) this.serial(DIRECT, { op: 'append', index, path, text }, this.directDone)
    return true
  }

  /** Whether the Writable is idle now (nothing queued, corked, ended or failed), noted in `idle`. */
  private becameIdle(): boolean {
    return this.idle = this.writableLength === 0 && this.writableCorked === 0 && !this.writableEnded && !this.destroyed && this.errored === null
  }

  /**
   * Whether the Presenter has a `text` listener: the Display asks before each text update, and
   * `listenerCount` is a dictionary lookup of the event's name (about 170–240 instructions a text
   * update, by callgrind). Counted again only after a listener was added or removed.
   * @internal
   */
  textListened(): boolean {
    return this.hasText ??= this.listenerCount('text') > 0
  }

  /** Forgets the `text` listener count when a listener of `text` is added or removed. */
  private trackTextListeners(): void {
    this.hasText = null
    if (!this.listeners('newListener').includes(this.forgetText)) (this as Writable).on('newListener', this.forgetText)
    if (!this.listeners('removeListener').includes(this.forgetText)) (this as Writable).on('removeListener', this.forgetText)
  }

  /**
   * `removeAllListeners`, after which the Presenter tracks its `text` listeners again (removing
   * every listener removes the Presenter's own `newListener` and `removeListener` ones).
   * @internal
   */
  override removeAllListeners(...event: [event?: string | symbol]): this {
    // passed on as given: with no argument at all it removes every event's listeners
    super.removeAllListeners(...event)
    this.trackTextListeners()
    return this
  }

  /** @internal */
  override cork(): void {
    this.idle = false
    super.cork()
  }

  /** @internal */
  override end(cb?: () => void): this
  override end(chunk: unknown, cb?: () => void): this
  override end(chunk: unknown, encoding: BufferEncoding, cb?: () => void): this
  override end(...args: unknown[]): this {
    this.idle = false
    return Reflect.apply(Writable.prototype.end, this, args) as this
  }

  /**
   * The common record, presented by `write` without the task queue's dispatch: an `append` that
   * grows the cursor block, the last block and still partial, of a message not stopped (almost
   * every diff of a stream). Returns `false`, having done nothing, for any other record: `serial`
   * then presents it, with the same outcome.
   */
  private grow(chunk: unknown): boolean {
    if (typeof chunk !== 'object') return false
    const d = chunk as { op?: unknown; index?: unknown; path?: unknown; text?: unknown }
    if (d.op !== 'append') return false
    return this.growBy(d.index, d.path, d.text, undefined, 0)
  }

  /**
   * `grow` of the append `{index, path, text}`; with `run`, its text is that run of the parser's
   * field from `from` (see `offerAppend`).
   */
  private growBy(index: unknown, path: unknown, text: unknown, run: TextRun | undefined, from: number): boolean {
    if (this.stopped !== null) return false
    const i = this.index
    const snap = this.snap
    if (index !== i || i !== snap.length - 1 || typeof text !== 'string') return false
    const b = snap.live[i]!
    // `append` checks that the path names a string field of the block (blocks never hold a param
    // named __proto__); the index and text were checked above
    if (b.partial !== true || !snap.append(b, path as string, text, run, from)) return false
    this.display.appended(b, text)
    this.busy = true
    this.inflight = 0
    let p: Maybe
    try {
      p = this.display.show(b)
    } catch (err) {
      this.busy = false
      this.settle(this.directDone, err)
      return true
    }
    if (p === undefined) {
      this.busy = false
      // a record the hook wrote meanwhile waits its turn (a UI update never interrupts, so no
      // teardown is due)
      if (this.waiting.length > 0) this.settle(this.directDone, undefined)
    } else {
      this.cork()
      this.settleLater(p, this.directDone, true)
    }
    return true
  }

  /** @internal */
  override _write(record: unknown, _encoding: BufferEncoding, callback: Callback): void {
    this.serial(WRITE, record, callback)
  }

  /**
   * Diffs buffered while a tool ran or a UI update was awaited arrive here together: they are all
   * applied first and the UI gets one update per block.
   * @internal
   */
  override _writev(chunks: { chunk: unknown }[], callback: Callback): void {
    const records = chunks.map((c) => c.chunk)
    this.serial(WRITEV, records, callback)
  }

  /** @internal */
  override _final(callback: Callback): void {
    this.serial(END, null, callback)
  }

  /** @internal */
  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.idle = false
    this.cadence.cancel()
    if (this.signal !== undefined && this.onAbort !== undefined) this.signal.removeEventListener('abort', this.onAbort)
    // the reason is made only for a tool in flight: an Error captures a stack trace, and every
    // stream that ends is destroyed (autoDestroy)
    if (this.tools.inFlight) this.tools.abort(this.signal?.aborted === true ? this.signal.reason : (err ?? abortError(undefined)))
    callback(err)
  }

  // ---- serialisation -----------------------------------------------------------------------

  /**
   * Runs `task` when no other presentation is in flight. Writes are already serial; the cadence
   * timer is the only other source of work. Synchronous tasks stay synchronous, which keeps the
   * common path (no-op or sync hooks) free of promise overhead.
   */
  private serial(kind: TaskKind, arg: unknown, done: Callback): void {
    if (this.busy) {
      this.waiting.push({ kind, arg, done })
      return
    }
    let p: Maybe
    // a write made by a hook meanwhile waits for this task (the Writable's own `write` would hold
    // it too: its `_write` is not done)
    this.busy = true
    try {
      // no closure per write: this runs once per diff
      this.inflight = kind === WRITE ? 1 : kind === WRITEV ? (arg as unknown[]).length : 0
      const stopped = this.stopped !== null && !this.marked
      if (kind === WRITE || kind === DIRECT) {
        const op = stopped ? 'stopped' : arg !== null && typeof arg === 'object' ? (arg as { op?: unknown }).op : undefined
        if (op === 'stopped') p = this.drain([arg])
        else if (op === 'append' || op === 'add' || op === 'set' || op === 'complete' || op === 'replace' || op === 'truncate') {
          // growth of the partial block at the cursor (most diffs): its update is all that
          // `advance` would do, so it is asked for directly
          const grown = this.take(arg as BlockDiff)
          p = grown !== undefined && grown.partial && this.stopped === null ? this.display.show(grown) : this.advance()
        } else {
          p = this.ingest([arg], 0)
        }
      } else if (kind === WRITEV) p = stopped ? this.drain(arg as unknown[]) : this.ingest(arg as unknown[], 0)
      else if (kind === END) p = this.endInput()
      else p = this.advance()
    } catch (err) {
      this.busy = false
      this.settle(done, err)
      return
    }
    if (p === undefined) {
      this.busy = false
      this.settle(done, undefined)
    } else if (kind === DIRECT) {
      // the Writable does not know this record is in flight: corked, it buffers the next ones as
      // it would behind a `_write` still running, and hands them over together (SPEC 7.10)
      this.cork()
      this.settleLater(p, done, true)
    } else this.settleLater(p, done, false)
  }

  /**
   * Its own method, not inline in `serial`: a function that creates closures capturing `this`
   * allocates a context on every call, even when the closures are not made (once per diff).
   */
  private settleLater(p: Promise<void>, done: Callback, corked: boolean): void {
    p.then(
      () => { this.busy = false; this.settle(done, undefined); if (corked) this.uncork() },
      (err: unknown) => { this.busy = false; this.settle(done, err); if (corked) this.uncork() },
    )
  }

  private settle(done: Callback, err: unknown): void {
    if (this.destroyed) {
      // nothing more to report or present: the stream already failed, a late callback would only
      // add noise, and a queued task would call the caller's hooks after the end
      this.waiting.length = 0
      return
    }
    const next = this.waiting.length === 0 ? undefined : this.waiting.shift()
    if (err !== undefined) {
      done(err instanceof Error ? err : new Error(String(err)))
    } else if (this.tearDown) {
      this.tearDown = false
      this.destroy(new InterruptError(this.tools.last!))
    } else {
      done()
    }
    if (next !== undefined) this.serial(next.kind, next.arg, next.done)
  }

  // ---- records -----------------------------------------------------------------------------

  private ingest(records: readonly unknown[], from: number): Maybe {
    for (let i = from; i < records.length; i++) {
      if (this.stopped !== null && !this.marked && !this.draining) return undefined // input after an interrupt is not read
      const r = records[i]
      if (Array.isArray(r)) {
        checkSnapshot(r)
        for (const d of diffBlocks(this.snap.blocks, r)) this.take(d)
        continue
      }
      if (r === null || typeof r !== 'object') {
        invalidDiff(r, 'a record written to a Presenter must be a diff object')
      }
      const op = (r as { op?: unknown }).op
      if (op === 'diagnostic') continue
      if (op === 'message' || op === 'end') {
        if (this.draining) {
          // the stopped message ended: what follows is not read (a replay of several messages
          // with no marker before the first one)
          this.finishDrain(true)
          return undefined
        }
        const p = this.endMessage()
        if (p !== undefined) return this.ingestAfter(p, op === 'message', records, i + 1)
        this.newMessage(op === 'message')
        continue
      }
      this.take(r as BlockDiff)
    }
    return this.advance()
  }

  /** After the end of a message that went async: the next message, then the rest of the records. */
  private ingestAfter(p: Promise<void>, marked: boolean, records: readonly unknown[], from: number): Promise<void> {
    return p.then(() => {
      this.newMessage(marked)
      return this.ingest(records, from)
    })
  }

  /**
   * Applies one diff to the snapshot, keeping the cursor block's display in step. Returns the
   * cursor block when the diff was an append to it by the common path.
   */
  private take(d: BlockDiff): Block | undefined {
    const cursor = this.index
    const snap: Snapshot = this.snap
    // the common case, growth of the last block's field, without the generic path's checks: a
    // number index at the end, a string text, and `append` checks that the path names an own
    // string field of the block (blocks never hold a param named __proto__)
    if (d.op === 'append' && d.index === snap.length - 1 && d.index >= cursor && typeof d.text === 'string') {
      const b = snap.live[d.index]!
      if (snap.append(b, d.path, d.text)) {
        if (d.index !== cursor) return undefined
        this.display.appended(b, d.text)
        return b
      }
    }
    this.takeChecked(d)
    return undefined
  }

  /** Any other diff, checked first: records come from logs and sockets (kept out of `take` so that it stays small enough to inline). */
  private takeChecked(d: BlockDiff): void {
    const cursor = this.index
    const snap: Snapshot = this.snap
    snap.check(d)
    switch (d.op) {
      case 'truncate':
        if (d.length < cursor) this.handled(d, d.length)
        snap.apply(d)
        if (d.length <= cursor) this.display.reset(snap.live[this.index])
        return
      case 'add':
        snap.apply(d)
        if (d.index === cursor) this.display.reset(snap.live[this.index])
        return
      case 'complete':
        if (d.index < cursor && snap.live[d.index]?.partial === false) return // already final: nothing to do
        if (d.index < cursor) this.handled(d, d.index)
        snap.apply(d)
        if (d.index === cursor) this.display.touched()
        return
      default:
        if (d.index < cursor) this.handled(d, d.index)
        snap.apply(d)
        if (d.index === cursor) {
          const b = snap.live[cursor]!
          if (d.op === 'append') this.display.appended(b, d.text)
          else this.display.changed(b)
        }
    }
  }

  /** A diff may never change a block the cursor has passed: it was shown, and maybe run, as final. */
  private handled(d: unknown, index: number): never {
    invalidDiff(d, `it changes block ${index}, which the Presenter already presented as complete`)
  }

  // ---- presentation ------------------------------------------------------------------------

  /** Presents from the cursor as far as the snapshot allows; a promise only if a hook went async. */
  private advance(): Maybe {
    for (;;) {
      if (this.stopped !== null || this.destroyed) return undefined
      const b = this.snap.live[this.index]
      if (b === undefined) return undefined
      if (b.type === 'tool_use' && !b.partial) {
        // a tool whose attempt ended at once has moved the cursor on (`toolDone`): go on from there
        const p = this.tools.run(this.snap.blocks[this.index] as ToolUseBlock, this.toolDone)
        if (p !== undefined) return this.afterTool(p)
        continue
      }
      const p = this.display.show(b)
      if (b.partial) return p
      if (p !== undefined) return this.nextAfter(p)
      this.moveOn()
    }
  }

  // the closures of `advance` live in these, so that `advance` (once per diff) allocates nothing

  private afterTool(p: Promise<void>): Promise<void> {
    return p.then(() => this.advance())
  }

  private nextAfter(p: Promise<void>): Promise<void> {
    return p.then(() => this.next())
  }

  private next(): Maybe {
    this.moveOn()
    return this.advance()
  }

  private moveOn(): void {
    this.index++
    this.display.reset(this.snap.live[this.index])
  }

  /** The current message stops (SPEC 7.3–7.5): its later tools get `skipped` results. */
  private interrupt(reason: InterruptInfo['reason']): void {
    const info = this.tools.stop(reason)
    this.stopped = info
    if (this.marked) {
      // a replay of several messages: read on to the next one
      this.skipRest()
      this.emit('interrupt', info)
      return
    }
    this.emit('interrupt', info)
    // The diffs already produced upstream are still read (not presented), so that every tool
    // call in them gets its `skipped` result whatever the streams buffered; the parser stops
    // parsing, so nothing new is produced. Those diffs are in this stream's own buffer and in the
    // parser's readable side: a known number of records, which `pipe` delivers in order.
    const up = this.upstream
    if (up instanceof BlockParser) up.stopParsing()
    this.draining = true
    this.drainLeft = this.writableEnded
      ? Infinity // the end is already on its way: read up to it
      : this.writableLength - this.inflight + (up instanceof BlockParser ? up.readableLength : 0)
    this.endDrainIfDone()
  }

  /**
   * The upstream let go (its end, or someone's `unpipe()`). In the middle of a drain, the records
   * counted in its readable side will not come: the drain ends with what this stream holds.
   */
  private unpiped(src: Readable): void {
    if (src instanceof BlockParser) src.unfuse()
    if (this.upstream !== src) return
    this.upstream = null
    if (!this.draining || src.readableEnded) return // at its end, the end of this stream follows
    this.drainLeft = Math.min(this.drainLeft, this.writableLength - (this.busy ? this.inflight : 0))
    if (this.busy || this.drainLeft > 0) return // the next records end it
    this.finishDrain(true)
    if (this.tearDown) {
      this.tearDown = false
      this.destroy(new InterruptError(this.tools.last!))
    }
  }

  /** Records that arrive after an interrupt: applied to the snapshot only, up to the drain's end. */
  private drain(records: readonly unknown[]): Maybe {
    if (!this.draining) return undefined // the drain is over: the rest of the input is not read
    const p = this.ingest(records, 0)
    this.drainLeft -= records.length
    this.endDrainIfDone()
    return p
  }

  private endDrainIfDone(): void {
    if (!this.draining || this.drainLeft > 0) return
    const up = this.upstream
    if (up instanceof BlockParser && up.writableEnded && up.writableLength === 0 && !up.destroyed) {
      // the parser had all its input: only its end is to come (and the `complete` diffs of its
      // flush), so the input is not cut short; wait for it rather than tear the pipeline down
      this.drainLeft = Infinity
      return
    }
    this.finishDrain(true)
  }

  /** The drained records are all in: `skipped` results for the tools in them, then `ready`. */
  private finishDrain(tearDown: boolean): void {
    this.draining = false
    this.skipRest()
    this.emitReady()
    // nothing left to stop if the input already ended: then the stream finishes normally
    if (tearDown && !this.writableEnded) this.tearDown = true
  }

  /** `skipped` results for the tools of the stopped message received so far. */
  private skipRest(): void {
    if (this.stopped !== null) this.tools.skipRest(this.snap.live, this.index, this.stopped)
  }

  private emitReady(): void {
    if (this.readyEmitted) return
    this.readyEmitted = true
    this.emit('ready', this.results)
  }

  // ---- ends --------------------------------------------------------------------------------

  /**
   * The current message has no more diffs: present what is left, then deal with a block that
   * is still partial as the end of input does.
   */
  private endMessage(): Maybe {
    const p = this.advance()
    if (p !== undefined) return p.then(() => this.finishLeftover())
    return this.finishLeftover()
  }

  private finishLeftover(): Maybe {
    this.snap.sync()
    if (this.destroyed) return undefined
    if (this.stopped !== null) {
      if (this.draining) this.finishDrain(false)
      else if (this.marked) this.skipRest()
      return undefined
    }
    const b = this.snap.live[this.index]
    if (b === undefined || !b.partial) return undefined
    if (b.type === 'tool_use') {
      this.tools.cutOff(b)
      this.moveOn()
      return undefined
    }
    // text left partial (a parser with completeOnEnd: false): its last update is final
    b.partial = false
    this.display.touched()
    return this.display.show(b)
  }

  private newMessage(marked: boolean): void {
    this.snap.reset()
    this.index = 0
    this.stopped = null
    this.tools.newMessage()
    this.marked = marked || this.marked
    this.display.reset(undefined)
  }

  private endInput(): Maybe {
    const finish = (): Maybe => {
      this.cadence.cancel()
      if (!this.destroyed) this.emitReady()
      return undefined
    }
    const p = this.endMessage()
    return p === undefined ? finish() : p.then(finish)
  }
}

/**
 * The Presenter's events, typed by name (a Writable's are `any`).
 * @group Presenter
 */
export interface Presenter {
  /** Adds a listener of a {@link PresenterEvents} event. */
  on<K extends keyof PresenterEvents>(event: K, listener: PresenterListener<K>): this
  /** Adds a one-time listener of a {@link PresenterEvents} event. */
  once<K extends keyof PresenterEvents>(event: K, listener: PresenterListener<K>): this
  /** Removes a listener. */
  off<K extends keyof PresenterEvents>(event: K, listener: PresenterListener<K>): this
  /** Adds a listener (the same as `on`). */
  addListener<K extends keyof PresenterEvents>(event: K, listener: PresenterListener<K>): this
  /** Removes a listener (the same as `off`). */
  removeListener<K extends keyof PresenterEvents>(event: K, listener: PresenterListener<K>): this
  /** Adds a listener before the others. */
  prependListener<K extends keyof PresenterEvents>(event: K, listener: PresenterListener<K>): this
  /** Adds a one-time listener before the others. */
  prependOnceListener<K extends keyof PresenterEvents>(event: K, listener: PresenterListener<K>): this
  /** Emits an event with its typed arguments. */
  emit<K extends keyof PresenterEvents>(event: K, ...args: PresenterEvents[K]): boolean
}

/**
 * Factory for {@link Presenter}, in the style of {@link createBlockParser}.
 * @example
 * ```ts
 * import { pipeline } from 'node:stream/promises'
 * import { Readable } from 'node:stream'
 * import { createBlockParser, createPresenter } from 'tagstream'
 *
 * const presenter = createPresenter({
 *   say: ({ content, partial }) => { if (!partial) console.log(content) },
 *   executeTool: (block) => `would run ${block.name} ${JSON.stringify(block.params)}`,
 * })
 * await pipeline(Readable.from(['Reading.\n<read_file><path>a.ts</path></read_file>']), createBlockParser(), presenter)
 * presenter.results // [ { call_id: '…', name: 'read_file', content: 'would run read_file {"path":"a.ts"}', status: 'ok' } ]
 * ```
 * @group Presenter
 */
export function createPresenter(options: PresenterOptions): Presenter {
  return new Presenter(options)
}

