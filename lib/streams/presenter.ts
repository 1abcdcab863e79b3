/**
 * Presenter: a Writable that consumes block diffs, shows text and runs tool calls one at a time
 * (SPEC 7). The write callback fires only once a diff has been presented, so a tool waiting for a
 * person's approval holds back the whole pipeline.
 * @module
 */
import { Writable, type Readable } from 'node:stream'
import type { Block, BlockDiff, ToolUseBlock } from '../types.js'
import { TagstreamError } from '../errors.js'
import { clineDialect, type Dialect } from '../dialect.js'
import { diffBlocks, fieldAt } from '../diff/diff.js'
import { cutFenceOpener, TextCleaner } from '../present/clean.js'
import { applyChecked, cloneBlock } from '../present/snapshot.js'
import { checkDiff, checkSnapshot, invalidDiff, setParam } from '../diff/validate.js'
import { Rope } from '../parse/rope.js'
import { BlockParser } from './block-parser.js'

/**
 * One UI update of a text or reasoning block, as given to `say` and the `text` event. `content`
 * is the block's whole display text so far, not a delta.
 * @example
 * ```ts
 * const m: SayMessage = { type: 'text', content: 'I will read the file', partial: true }
 * ```
 * @group Presenter
 */
export interface SayMessage {
  /** Which kind of block this shows. */
  type: 'text' | 'reasoning'
  /** The whole display text of the block (cleaned, for text blocks with `cleanText`). */
  content: string
  /** `true` while the block may still grow; the last update of a block has `false`. */
  partial: boolean
}

/**
 * What an executor returns: the tool's output for the model, and whether the person refused it.
 * @example
 * ```ts
 * const denied: ToolOutcome = { content: 'The user denied this operation.', rejected: true }
 * ```
 * @group Presenter
 */
export interface ToolOutcome {
  /** The tool's result, as the model should read it. */
  content: string
  /** The person refused the call: later tools are skipped and later text is not shown. */
  rejected?: boolean
}

/**
 * Second argument of `executeTool`.
 * @example
 * ```ts
 * const exec = async (block: ToolUseBlock, { signal }: ToolContext) => (await fetch(block.params.url!, { signal })).text()
 * ```
 * @group Presenter
 */
export interface ToolContext {
  /**
   * Aborted when the presentation is aborted (the `signal` option) or the presenter is destroyed
   * while the tool runs; a long tool should stop then.
   */
  signal: AbortSignal
}

/**
 * Status of a tool result:
 * - `ok`: the executor returned;
 * - `error`: it threw, the call was cut off, or the checkpoint failed;
 * - `rejected`: the executor returned `rejected: true`;
 * - `skipped`: not run, because a tool was already used or a previous one was rejected.
 * @group Presenter
 */
export type ToolStatus = 'ok' | 'error' | 'rejected' | 'skipped'

/**
 * One tool call's result, in message order, ready to be sent back to the model.
 * @example
 * ```ts
 * const r: ToolResult = { call_id: 'V1StGXR8', name: 'read_file', content: 'export {}', status: 'ok' }
 * ```
 * @group Presenter
 */
export interface ToolResult {
  /** The block's `call_id`. */
  call_id: string
  /** The tool's name. */
  name: string
  /** The executor's output, the error message, or why the tool was not run. */
  content: string
  /** See {@link ToolStatus}. */
  status: ToolStatus
  /**
   * `true` on the real outcome of a tool that was running when the presentation was aborted
   * (the `signal` option, or `destroy()`) and settled afterwards. At the abort the tool's result
   * is an `error` saying so; when the executor settles, that entry of `results` is replaced by
   * what it returned or threw (its real status and content, with `afterAbort: true`) and a
   * `result` event reports it, after `close` if need be: the tool's side effects happened even
   * though the model's turn was cut short, and the next turn should say so. A tool that never
   * settles keeps the `error` result.
   */
  afterAbort?: true
}

/**
 * Payload of the `interrupt` event.
 * @example
 * ```ts
 * presenter.on('interrupt', ({ reason, note }) => { assistantText += '\n\n' + note })
 * ```
 * @group Presenter
 */
export interface InterruptInfo {
  /** `tool-used`: one tool per message (`parallelToolCalls: false`); `rejected`: the person refused a tool. */
  reason: 'rejected' | 'tool-used'
  /**
   * A sentence for the model, to append to the assistant message that was cut short, so that its
   * next turn knows why its message ended early. See {@link INTERRUPT_NOTES}.
   */
  note: string
}

/**
 * The `note` of each interrupt reason. Bracketed, like the original's notes, so that it reads as
 * a remark of the system rather than words of the model when appended to the assistant message.
 * @group Presenter
 */
export const INTERRUPT_NOTES: Readonly<Record<InterruptInfo['reason'], string>> = Object.freeze({
  'tool-used': '[Response interrupted by a tool use result. Only one tool may be used per message, and it should come at the end of the message; the rest of this message was not read.]',
  rejected: '[Response interrupted: the user rejected a tool call, so the rest of this message was discarded and no later tool was run.]',
})

/**
 * Options of {@link Presenter}. Only `executeTool` is required.
 * @example
 * ```ts
 * const opts: PresenterOptions = {
 *   say: ({ content, partial }) => render(content, partial),
 *   executeTool: async (block) => ({ content: await run(block) }),
 *   checkpoint: git.commit('before the model edits'),
 *   cadenceMs: 50,
 * }
 * ```
 * @group Presenter
 */
export interface PresenterOptions {
  /**
   * Runs one complete tool block and returns its result (a string means `{content}`). Throwing
   * gives an `error` result with the message; presentation goes on. Never called for a block with
   * `truncated: true`.
   */
  executeTool: (block: ToolUseBlock, context: ToolContext) => ToolOutcome | string | PromiseLike<ToolOutcome | string>
  /**
   * Shows a text or reasoning block; called again with the whole updated text each time the block
   * grows, and a last time with `partial: false`. A returned promise is awaited before the next
   * diff is taken. A throw or rejection fails the stream: a broken UI should not go on running
   * tools unseen.
   *
   * A text block is first shown once its display text is not empty: a block that cleans to
   * nothing (`<thinking></thinking>` alone, a lone `<`) is never passed to `say` (the original
   * implementation says `""` for it). Once shown, a block gets every update, down to its last.
   */
  say?: (message: SayMessage) => void | PromiseLike<void>
  /** UI update for a tool block that is still streaming (a copy: it may be kept). Awaited; a throw fails the stream. */
  onToolPartial?: (block: ToolUseBlock) => void | PromiseLike<void>
  /**
   * `false` (default): the first tool attempted (run, even if it throws, or refused by a failed
   * checkpoint) ends the message; later tools get `skipped` results, later text is not shown,
   * `interrupt` fires. `true`: every tool runs, still one at a time. A call cut off by the end of
   * the input is not an attempt: nothing follows it anyway.
   */
  parallelToolCalls?: boolean
  /** Tools that never wait for the `checkpoint`; default: the dialect's `readOnlyTools`. */
  readOnlyTools?: readonly string[]
  /** Where the default `readOnlyTools` come from; default {@link clineDialect}. */
  dialect?: Dialect
  /**
   * The first tool that is not read-only waits for this promise (for example, a snapshot of the
   * workspace being committed) before it runs; read-only tools never wait. If it rejects, tools
   * that are not read-only get an `error` result instead of running unprotected.
   */
  checkpoint?: PromiseLike<unknown>
  /**
   * Aborts the presentation: the running tool's signal is aborted (and the tool gets an `error`
   * result, replaced by its real outcome marked `afterAbort` if it settles later: see
   * {@link ToolResult.afterAbort}), and the presenter is destroyed with an `AbortError`;
   * `results` keep what was done.
   */
  signal?: AbortSignal
  /** Clean text blocks for display with {@link cleanDisplayText} (default `true`). */
  cleanText?: boolean
  /**
   * Minimum time in ms between two updates (`say` or `onToolPartial`) of the same still-partial
   * block. Updates in between are merged: the block's latest state is shown when the interval is
   * over (even if no diff arrives then) or when the block completes, whichever comes first; the
   * update with `partial: false` is never delayed. It never delays the write callback, so it does
   * not slow the model's stream. `0` (default): no timer; updates are still merged when diffs
   * arrive while the presenter is busy (one update per block per batch, see `_writev`).
   */
  cadenceMs?: number
  /** Writable-side buffer in diff records (default 16). */
  highWaterMark?: number
}

/**
 * What the presenter destroys itself with after an `interrupt` when input was still to come, so
 * that `stream.pipeline` tears the chain down and the source (the model's request) stops. It is an
 * `AbortError` (`name` `'AbortError'`, `code` `'ABORT_ERR'`): the rest of the stream was aborted
 * on purpose. Tell it from a user's abort with `instanceof InterruptError`.
 *
 * `await pipeline(source, parser, presenter)` therefore:
 * - resolves when the input ended with no interrupt, or when the input had all been parsed when
 *   the interrupt came (nothing was left to stop: the presenter reads on to the end, recording
 *   `skipped` results, and finishes);
 * - rejects with an `InterruptError` when an interrupt cut the input short. The presentation
 *   itself succeeded: `ready` has fired and `presenter.results` is final (every call parsed
 *   before the interrupt has its result).
 * @example
 * ```ts
 * try {
 *   await pipeline(source, createBlockParser(), presenter)
 * } catch (err) {
 *   if (!(err instanceof InterruptError)) throw err
 * }
 * sendToModel(presenter.results)
 * ```
 * @group Presenter
 */
export class InterruptError extends Error {
  /** Always `'ABORT_ERR'`, as Node's own AbortError. */
  readonly code = 'ABORT_ERR'
  /** Why the presenter stopped reading. */
  readonly reason: InterruptInfo['reason']
  /** The note for the model, as in the `interrupt` event. */
  readonly note: string

  /** @param info - the interrupt's reason and note */
  constructor(info: InterruptInfo) {
    super(`presentation interrupted (${info.reason}): the rest of the message was not read`)
    this.name = 'AbortError'
    this.reason = info.reason
    this.note = info.note
  }
}

/** Node's AbortError shape (it does not export the class). */
function abortError(cause: unknown): Error {
  const err = new Error('The operation was aborted', { cause }) as Error & { code: string }
  err.name = 'AbortError'
  err.code = 'ABORT_ERR'
  return err
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message
  return String(err)
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function'
}

/** A private copy for a hook: the snapshot's partial blocks are updated in place. */
function copyTool(b: ToolUseBlock): ToolUseBlock {
  const c: ToolUseBlock = { type: 'tool_use', name: b.name, params: { ...b.params }, partial: b.partial, call_id: b.call_id, isNativeToolCall: b.isNativeToolCall }
  if (b.truncated === true) c.truncated = true
  return c
}

type Callback = (err?: Error | null) => void
const WRITE = 0
const WRITEV = 1
const END = 2
const TIMER = 3
type TaskKind = typeof WRITE | typeof WRITEV | typeof END | typeof TIMER
type Maybe = Promise<void> | undefined

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
  private readonly executeTool: PresenterOptions['executeTool']
  private readonly sayHook: PresenterOptions['say']
  private readonly onToolPartial: PresenterOptions['onToolPartial']
  private readonly parallel: boolean
  private readonly readOnly: ReadonlySet<string>
  private readonly cleanText: boolean
  private readonly cadenceMs: number
  private readonly signal: AbortSignal | undefined
  private readonly onAbort: (() => void) | undefined
  /** settles to `undefined` (resolved) or `{ error }`, never rejects */
  private checkpoint: Promise<{ error: unknown } | undefined> | undefined

  private snap: Block[] = []
  private index = 0
  /** message-level state */
  private marked = false
  private stopped: InterruptInfo | null = null
  /** The tool blocks of the stopped message that have their `skipped` result: index and call_id. */
  private readonly skipped = new Set<string>()
  /** cursor-block display state */
  private dirty = true
  private shownAny = false
  /** The growing field of the open block (the last one): its value, block and diff path. */
  private readonly open = new Rope()
  private openBlock: Block | null = null
  private openPath = ''
  /** The param name of an open tool field, cut from its path once (a sliced key per write is slow). */
  private openKey = ''
  /** The open block's field lags behind `open`: see {@link Presenter.sync}. */
  private openStale = false
  private shownHeadKind = -1
  private shownHeadVersion = -1
  private shownTail = ''
  private shownText = ''
  private lastUpdateAt = 0
  private readonly cleaner = new TextCleaner()

  private readonly done: ToolResult[] = []
  private interruptInfo: InterruptInfo | null = null
  private tearDown = false
  private readyEmitted = false
  /** The tool in flight; `slot` is the index of its placeholder result once an abort recorded one. */
  private running: { block: ToolUseBlock; controller: AbortController; slot: number } | null = null
  private timer: NodeJS.Timeout | undefined
  /** The stream piped into this one (from its `pipe` event), stopped at an interrupt if it is a BlockParser. */
  private upstream: Readable | null = null
  /** After an interrupt: the diffs produced before it are still read, for their `skipped` results. */
  private draining = false
  /** How many records of the drain are still to come (`Infinity`: until the end of input). */
  private drainLeft = 0
  /** Records of the task in flight (Writable counts them in `writableLength` until its callback). */
  private inflight = 0
  private busy = false
  private readonly waiting: { kind: TaskKind; arg: unknown; done: Callback }[] = []

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
    this.executeTool = options.executeTool
    this.sayHook = options.say
    this.onToolPartial = options.onToolPartial
    this.parallel = options.parallelToolCalls ?? false
    this.readOnly = new Set(readOnly)
    this.cleanText = options.cleanText ?? true
    this.cadenceMs = cadenceMs
    if (options.checkpoint !== undefined) {
      // handled now, so a checkpoint that fails before any tool needs it is not an unhandled rejection
      this.checkpoint = Promise.resolve(options.checkpoint).then(() => undefined, (error: unknown) => ({ error }))
    }
    this.on('pipe', (src: Readable) => { this.upstream = src })
    this.on('unpipe', (src: Readable) => this.unpiped(src))
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
    return this.done.slice()
  }

  /** The current message's blocks, as the diffs so far add up to (copies). */
  get blocks(): Block[] {
    this.sync()
    return this.snap.map(cloneBlock)
  }

  /** Index of the block being presented: every block before it is complete and handled. */
  get cursor(): number {
    return this.index
  }

  /** The interrupt that happened, if any (the last one, in a stream of several messages). */
  get interrupted(): InterruptInfo | null {
    return this.interruptInfo
  }

  // ---- Writable ----------------------------------------------------------------------------

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
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
    if (this.signal !== undefined && this.onAbort !== undefined) this.signal.removeEventListener('abort', this.onAbort)
    const running = this.running
    if (running !== null) {
      this.running = null
      const reason = this.signal?.aborted === true ? this.signal.reason : (err ?? abortError(undefined))
      running.slot = this.done.length
      this.record(running.block, 'error', `aborted: the presentation stopped while the tool ran (${errorMessage(reason)})`)
      running.controller.abort(reason)
    }
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
    try {
      // no closure per write: this runs once per diff
      this.inflight = kind === WRITE ? 1 : kind === WRITEV ? (arg as unknown[]).length : 0
      if (kind === WRITE) {
        const op = this.stopped !== null && !this.marked ? 'stopped' :  arg !== null && typeof arg === 'object' ? (arg as { op?: unknown }).op : undefined
        if (op === 'stopped') p = this.drain([arg])
        else if (op === 'append' || op === 'add' || op === 'set' || op === 'complete' || op === 'replace' || op === 'truncate') {
          this.take(arg as BlockDiff)
          p = this.advance()
        } else {
          p = this.ingest([arg], 0)
        }
      } else if (kind === WRITEV) p = this.stopped !== null && !this.marked ? this.drain(arg as unknown[]) : this.ingest(arg as unknown[], 0)
      else if (kind === END) p = this.endInput()
      else p = this.advance()
    } catch (err) {
      this.settle(done, err)
      return
    }
    if (p === undefined) {
      this.settle(done, undefined)
      return
    }
    this.busy = true
    p.then(
      () => { this.busy = false; this.settle(done, undefined) },
      (err: unknown) => { this.busy = false; this.settle(done, err) },
    )
  }

  private settle(done: Callback, err: unknown): void {
    const next = this.waiting.length === 0 ? undefined : this.waiting.shift()
    if (this.destroyed) {
      // nothing more to report: the stream already failed, and a late callback would only add noise
    } else if (err !== undefined) {
      done(err instanceof Error ? err : new Error(String(err)))
    } else if (this.tearDown) {
      this.tearDown = false
      this.destroy(new InterruptError(this.interruptInfo!))
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
        this.sync()
        for (const d of diffBlocks(this.snap, r)) this.take(d)
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
        if (p !== undefined) {
          return p.then(() => {
            this.newMessage(op === 'message')
            return this.ingest(records, i + 1)
          })
        }
        this.newMessage(op === 'message')
        continue
      }
      this.take(r as BlockDiff)
    }
    return this.advance()
  }

  /** Applies one diff, keeping the cursor block's display state in step. */
  private take(d: BlockDiff): void {
    const cursor = this.index
    // the common case, growth of the last block's field, without the generic path's copies and
    // checks: the first append to a field opens it, the next ones only add a piece
    if (d.op === 'append' && d.index === this.snap.length - 1 && d.index >= cursor && typeof d.text === 'string') {
      const b = this.snap[d.index]!
      let open = b === this.openBlock && d.path === this.openPath
      if (!open) {
        const v = fieldAt(b, d.path)
        if (v !== undefined) {
          this.openField(b, d.path, v)
          open = true
        }
      }
      if (open) {
        this.open.push(d.text)
        this.openStale = true
        if (d.index === cursor) {
          this.dirty = true
          if (b.type === 'text') this.cleaner.append(d.text)
        }
        return
      }
    }
    // records come from logs and sockets: nothing unchecked reaches the snapshot (the fast path
    // above is its own check: a number index at the end, a string text, a path that names an
    // own string field of the block, and blocks never hold a param named __proto__)
    checkDiff(d, this.snap)
    this.detach()
    switch (d.op) {
      case 'truncate':
        if (d.length < cursor) this.handled(d, d.length)
        applyChecked(this.snap, d)
        if (d.length <= cursor) this.resetShown()
        return
      case 'add':
        applyChecked(this.snap, d)
        if (d.index === cursor) this.resetShown()
        return
      case 'complete':
        if (d.index < cursor && this.snap[d.index]?.partial === false) return // already final: nothing to do
        if (d.index < cursor) this.handled(d, d.index)
        applyChecked(this.snap, d)
        if (d.index === cursor) this.dirty = true
        return
      default:
        if (d.index < cursor) this.handled(d, d.index)
        applyChecked(this.snap, d)
        if (d.index === cursor) {
          this.dirty = true
          const b = this.snap[cursor]!
          if (b.type === 'text') {
            if (d.op === 'append' && d.path === 'content') this.cleaner.append(d.text)
            else this.cleaner.reset(b.content)
          }
        }
    }
  }

  /**
   * Makes `b`'s field at `path` the open one. Its appends go to a {@link Rope} and reach the
   * block when something reads it (a hook, `blocks`, the end of the block): `+=` on the block
   * would keep one cons string node per chunk alive, a chain that every major GC walks.
   */
  private openField(b: Block, path: string, value: string): void {
    this.sync()
    this.openBlock = b
    this.openPath = path
    this.openKey = b.type === 'tool_use' ? path.slice(7) : ''
    this.open.reset(value)
  }

  /** Brings the open block's field up to date: called before anything reads the blocks. */
  private sync(): void {
    if (!this.openStale) return
    this.openStale = false
    const b = this.openBlock!
    if (b.type === 'text') b.content = this.open.value
    else if (b.type === 'reasoning') b.reasoning = this.open.value
    else setParam(b.params, this.openKey, this.open.value)
  }

  /** Before a change that may touch the open field by another way than an append. */
  private detach(): void {
    this.sync()
    this.openBlock = null
    this.openPath = ''
  }

  /** A diff may never change a block the cursor has passed: it was shown, and maybe run, as final. */
  private handled(d: unknown, index: number): never {
    invalidDiff(d, `it changes block ${index}, which the Presenter already presented as complete`)
  }

  private resetShown(): void {
    this.dirty = true
    this.shownAny = false
    this.shownHeadKind = -1
    this.shownTail = ''
    this.shownText = ''
    this.lastUpdateAt = 0
    const b = this.snap[this.index]
    if (b !== undefined && b.type === 'text') {
      this.sync()
      this.cleaner.reset(b.content)
    }
  }

  // ---- presentation ------------------------------------------------------------------------

  /** Presents from the cursor as far as the snapshot allows; a promise only if a hook went async. */
  private advance(): Maybe {
    for (;;) {
      if (this.stopped !== null || this.destroyed) return undefined
      const b = this.snap[this.index]
      if (b === undefined) return undefined
      if (b.type === 'tool_use' && !b.partial) return this.runTool(b).then(() => this.advance())
      const p = this.show(b)
      if (b.partial) return p
      if (p !== undefined) return p.then(() => this.next())
      this.moveOn()
    }
  }

  private next(): Maybe {
    this.moveOn()
    return this.advance()
  }

  private moveOn(): void {
    this.index++
    this.resetShown()
  }

  /** One UI update of the cursor block, if it changed since the last one (and cadence allows). */
  private show(b: Block): Maybe {
    if (b.type === 'tool_use') {
      if (!this.dirty || this.onToolPartial === undefined) return undefined
      if (this.deferred()) return undefined
      this.dirty = false
      this.shownAny = true
      if (this.cadenceMs > 0) this.lastUpdateAt = Date.now()
      this.sync()
      const r = this.onToolPartial(copyTool(b))
      return isThenable(r) ? Promise.resolve(r) : undefined
    }
    let content: string
    if (b.type === 'reasoning') {
      if (!this.dirty) return undefined
      this.sync()
      content = b.reasoning
    } else if (!this.cleanText) {
      if (!this.dirty) return undefined
      this.sync()
      content = b.content
    } else if (!b.partial) {
      // the cleaner follows the cursor block's every change: no need to clean the whole text again
      content = cutFenceOpener(this.cleaner.display())
    } else {
      if (!this.dirty) return undefined
      const c = this.cleaner
      content = c.display()
      // the same head and tail: the same text, without comparing it; otherwise only texts of the
      // same length need a look
      const same = this.shownAny && (c.headKind === this.shownHeadKind && c.headVersion === this.shownHeadVersion && c.tailPart === this.shownTail
        || content.length === this.shownText.length && content === this.shownText)
      if (same) {
        this.dirty = false
        return undefined
      }
    }
    if (!this.shownAny && content.length === 0) {
      // nothing to show yet (a block that so far cleans to nothing)
      this.dirty = false
      return undefined
    }
    if (b.partial && this.deferred()) return undefined
    this.dirty = false
    this.shownAny = true
    if (b.type === 'text' && b.partial && this.cleanText) {
      const c = this.cleaner
      this.shownHeadKind = c.headKind
      this.shownHeadVersion = c.headVersion
      this.shownTail = c.tailPart
      this.shownText = content
    }
    if (this.cadenceMs > 0) this.lastUpdateAt = Date.now()
    return this.say({ type: b.type, content, partial: b.partial })
  }

  /** With `cadenceMs`: is it too early for another update of this block? Then one is scheduled. */
  private deferred(): boolean {
    if (this.cadenceMs === 0 || !this.shownAny) return false
    const wait = this.lastUpdateAt + this.cadenceMs - Date.now()
    if (wait <= 0) return false
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined
        if (this.destroyed) return
        this.serial(TIMER, null, (err) => { if (err) this.destroy(err) })
      }, wait)
    }
    return true
  }

  private say(message: SayMessage): Maybe {
    if (this.listenerCount('text') > 0) this.emit('text', message)
    if (this.sayHook === undefined) return undefined
    const r = this.sayHook(message)
    return isThenable(r) ? Promise.resolve(r) : undefined
  }

  private async runTool(b: ToolUseBlock): Promise<void> {
    if (b.truncated === true) {
      this.record(b, 'error', b.isNativeToolCall
        ? `Tool [${b.name}] was not executed: its arguments were incomplete (not a complete JSON object when the call ended), so its parameters may be missing or cut.`
        : `Tool [${b.name}] was not executed: the call was cut off (the input ended before its closing tag), so its parameters may be incomplete.`)
      this.moveOn()
      return
    }
    if (this.checkpoint !== undefined && !this.readOnly.has(b.name)) {
      const failed = await this.checkpoint
      if (this.destroyed) return
      if (failed !== undefined) {
        this.record(b, 'error', `Tool [${b.name}] was not executed: the checkpoint before it failed (${errorMessage(failed.error)}).`)
        this.moveOn()
        // the model must read this result before going on, as after any other attempt
        if (!this.parallel) this.interrupt('tool-used')
        return
      }
      this.checkpoint = undefined // only the first write waits; later ones find it settled anyway
    }
    this.emit('tool', b)
    const controller = new AbortController()
    const running = { block: b, controller, slot: -1 }
    this.running = running
    let status: ToolStatus
    let content: string
    try {
      const out = await this.executeTool(b, { signal: controller.signal })
      if (typeof out === 'string') {
        status = 'ok'
        content = out
      } else if (out !== null && typeof out === 'object' && typeof out.content === 'string') {
        status = out.rejected === true ? 'rejected' : 'ok'
        content = out.content
      } else {
        status = 'error'
        content = `executeTool returned ${out === null ? 'null' : typeof out}; expected a string or { content }`
      }
    } catch (err) {
      status = 'error'
      content = errorMessage(err)
    }
    if (this.running !== running) {
      // destroyed meanwhile: _destroy recorded an `error`; the tool did run, so its real outcome
      // takes that place, marked, for the next turn to know about its side effects
      if (running.slot >= 0) {
        const r: ToolResult = { call_id: b.call_id, name: b.name, content, status, afterAbort: true }
        this.done[running.slot] = r
        this.emit('result', r)
      }
      return
    }
    this.running = null
    this.record(b, status, content)
    this.moveOn()
    if (status === 'rejected') this.interrupt('rejected')
    else if (!this.parallel) this.interrupt('tool-used')
  }

  private record(b: ToolUseBlock, status: ToolStatus, content: string): void {
    const r: ToolResult = { call_id: b.call_id, name: b.name, content, status }
    this.done.push(r)
    this.emit('result', r)
  }

  private interrupt(reason: InterruptInfo['reason']): void {
    const info: InterruptInfo = { reason, note: INTERRUPT_NOTES[reason] }
    this.stopped = info
    this.interruptInfo = info
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
    if (this.upstream !== src) return
    this.upstream = null
    if (!this.draining || src.readableEnded) return // at its end, the end of this stream follows
    this.drainLeft = Math.min(this.drainLeft, this.writableLength - (this.busy ? this.inflight : 0))
    if (this.busy || this.drainLeft > 0) return // the next records end it
    this.finishDrain(true)
    if (this.tearDown) {
      this.tearDown = false
      this.destroy(new InterruptError(this.interruptInfo!))
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
    const info = this.stopped
    if (info === null) return
    const why = info.reason === 'rejected'
      ? 'a previous tool was rejected'
      : 'a tool was already used in this message (only one tool may be used per message; assess its result before using the next one)'
    // by index and call_id, not from where the last call stopped: a block after the cursor may
    // have been replaced since (text that turned out to be the start of a tool call)
    for (let i = this.index; i < this.snap.length; i++) {
      const b = this.snap[i]!
      if (b.type !== 'tool_use') continue
      const key = `${i} ${b.call_id}`
      if (this.skipped.has(key)) continue
      this.skipped.add(key)
      this.record(b, 'skipped', `Tool [${b.name}] was not executed: ${why}.`)
    }
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
    this.sync()
    if (this.destroyed) return undefined
    if (this.stopped !== null) {
      if (this.draining) this.finishDrain(false)
      else if (this.marked) this.skipRest()
      return undefined
    }
    const b = this.snap[this.index]
    if (b === undefined || !b.partial) return undefined
    if (b.type === 'tool_use') {
      this.record(b, 'error', b.isNativeToolCall
        ? `Tool [${b.name}] was not executed: the call was cut off (the input ended before its arguments were complete).`
        : `Tool [${b.name}] was not executed: the call was cut off (the input ended before it was complete).`)
      this.moveOn()
      return undefined
    }
    // text left partial (a parser with completeOnEnd: false): its last update is final
    b.partial = false
    this.dirty = true
    return this.show(b)
  }

  private newMessage(marked: boolean): void {
    this.detach()
    this.snap = []
    this.index = 0
    this.stopped = null
    this.skipped.clear()
    this.marked = marked || this.marked
    this.resetShown()
  }

  private endInput(): Maybe {
    const finish = (): Maybe => {
      if (this.timer !== undefined) clearTimeout(this.timer)
      this.timer = undefined
      if (!this.destroyed) this.emitReady()
      return undefined
    }
    const p = this.endMessage()
    return p === undefined ? finish() : p.then(finish)
  }
}

/**
 * The events of a {@link Presenter}, by name: the arguments each listener gets.
 * @example
 * ```ts
 * presenter.on('ready', (results) => sendToModel(results))          // results: ToolResult[]
 * presenter.on('interrupt', ({ reason, note }) => log(reason, note)) // InterruptInfo
 * ```
 * @group Presenter
 */
export interface PresenterEvents {
  /** A text or reasoning update, also given to `say`. */
  text: [message: SayMessage]
  /** A complete tool block is about to be executed. */
  tool: [block: ToolUseBlock]
  /** A result was recorded (any status; again with `afterAbort: true` when a tool settles after an abort). */
  result: [result: ToolResult]
  /** A tool was used or rejected: the rest of the message is not presented (SPEC 7.3-7.5). */
  interrupt: [info: InterruptInfo]
  /** Every block is handled; the results, in order, are final. */
  ready: [results: ToolResult[]]
  /** The stream and its resources are closed. */
  close: []
  /** The writable side can take more diffs. */
  drain: []
  /** The presentation failed (`ERR_INVALID_DIFF`, a failing hook, an `AbortError`). */
  error: [err: Error]
  /** Every diff was presented. */
  finish: []
  /** A source was piped in. */
  pipe: [src: Readable]
  /** A source was unpiped. */
  unpipe: [src: Readable]
}

/**
 * A listener of event `K` of {@link PresenterEvents}; it may declare more parameters than the
 * event gives (`once('close', resolve)`).
 * @group Presenter
 */
export type PresenterListener<K extends keyof PresenterEvents> = (...args: [...PresenterEvents[K], ...unknown[]]) => void

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

