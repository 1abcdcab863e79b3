/**
 * The Presenter's public contract: its options, its events and the error of an interrupt
 * (the Writable itself is in `presenter.ts`).
 * @module
 */
import type { Readable } from 'node:stream'
import type { ToolUseBlock } from '../types.js'
import type { Dialect } from '../dialect.js'
import type { SayMessage } from './display.js'
import type { InterruptInfo, ToolContext, ToolOutcome, ToolResult } from './tools.js'

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
   * `truncated: true`. A value returned synchronously is recorded (`result`) within the write that
   * completed the block, and what follows is presented in the same write, unless it stops the
   * message (a rejection, or any value under the one-tool rule): that one is recorded a tick
   * later, then the `interrupt`. A synchronous throw is recorded at once.
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
   *
   * With neither `say` nor a `text` listener, text is not cleaned nor any message built (nobody
   * would read them); a `text` listener added while a block streams gets it from its next change.
   */
  say?: (message: SayMessage) => void | PromiseLike<void>
  /**
   * UI update for a tool block that is still streaming. Awaited; a throw fails the stream.
   *
   * The block is a view, valid during the call (until a returned promise settles): each update is
   * a new object, but its `params` object is the same for every update of one block, and the
   * param that is growing is read live (an accessor: its string is made only when read), so that
   * an update costs no copy of the call's parameters. Read what you show during the call; to keep
   * an update, copy it (`{ ...block, params: { ...block.params } }`). The view is the Presenter's
   * display copy, never the block `executeTool` gets: writing to it changes nothing but that
   * object, which later views of the block may share (a write to the growing param makes the
   * next update copy the params again).
   */
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
