/**
 * The Presenter's tool runner: runs complete tool calls through the executor, one at a time,
 * applying the checkpoint, read-only, one-tool, rejection and truncated rules, and keeps the
 * results.
 * @module
 */
import type { Block, ToolUseBlock } from '../types.js'
import { isThenable, type Maybe } from './maybe.js'

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
/** Where the runner's events go (the Presenter), and whether it was destroyed. @internal */
export interface ToolEvents {
  /** The presentation stopped: an attempt in flight leaves the rest to the abort. */
  readonly destroyed: boolean
  emit(event: 'tool', block: ToolUseBlock): boolean
  emit(event: 'result', result: ToolResult): boolean
}

/** How an attempt ended, for the cursor: the interrupt it calls for, if any. @internal */
export type AttemptEnd = InterruptInfo['reason'] | null

/** The runner's rules, from the Presenter's options. @internal */
export interface ToolRules {
  executeTool: (block: ToolUseBlock, context: ToolContext) => ToolOutcome | string | PromiseLike<ToolOutcome | string>
  /** Every tool runs (`parallelToolCalls: true`); otherwise the first attempt ends the message. */
  parallel: boolean
  /** Tools that never wait for the checkpoint. */
  readOnly: ReadonlySet<string>
  /** The promise the first tool that is not read-only waits for. */
  checkpoint: PromiseLike<unknown> | undefined
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message
  return String(err)
}

/** A tool in flight; `slot` is the index of its placeholder result once an abort recorded one. */
interface Running {
  block: ToolUseBlock
  controller: AbortController
  slot: number
}

/** What an executor's value means: a status and the result's content (may throw: a getter). */
function outcome(out: unknown): [ToolStatus, string] {
  if (typeof out === 'string') return ['ok', out]
  if (out !== null && typeof out === 'object' && typeof (out as ToolOutcome).content === 'string') {
    const o = out as ToolOutcome
    // read once each, in this order, as a getter may change its answer
    const content = o.content
    return [o.rejected === true ? 'rejected' : 'ok', content]
  }
  return ['error', `executeTool returned ${out === null ? 'null' : typeof out}; expected a string or { content }`]
}

/**
 * Runs the tool calls of a stream of messages and records their results (SPEC 7.3–7.5).
 *
 * Owns: the results (`results`, in message order), the tool in flight and its AbortController,
 * the checkpoint's outcome, the last interrupt and the `skipped` results given in the current
 * message (whether the message is stopped is the Presenter's: its cursor and drain read it).
 * The cursor is the Presenter's: it learns when an attempt is over from the
 * `done` callback of {@link ToolRunner.run}, called synchronously once the result is recorded.
 * @internal
 */
export class ToolRunner {
  /** Every result so far, in message order; the Presenter's `results` are a copy. */
  readonly results: ToolResult[] = []
  /** The last interrupt (of any message). */
  last: InterruptInfo | null = null
  /** settles to `undefined` (resolved) or `{ error }`, never rejects */
  private checkpoint: Promise<{ error: unknown } | undefined> | undefined
  /** The tool in flight; `slot` is the index of its placeholder result once an abort recorded one. */
  private running: Running | null = null
  /** The tool blocks of the stopped message that have their `skipped` result: index and call_id. */
  private readonly skipped = new Set<string>()

  /**
   * @param rules - executor and rules
   * @param events - where `tool` and `result` events go
   */
  constructor(private readonly rules: ToolRules, private readonly events: ToolEvents) {
    if (rules.checkpoint !== undefined) {
      // handled now, so a checkpoint that fails before any tool needs it is not an unhandled rejection
      this.checkpoint = Promise.resolve(rules.checkpoint).then(() => undefined, (error: unknown) => ({ error }))
    }
  }

  /**
   * One attempt at the complete tool block `b`: its result is recorded, then `done` says whether
   * the message stops there. If the presentation is destroyed meanwhile, `done` is not called.
   *
   * Returns `undefined` when the attempt is over already, its message going on (`done(null)` was
   * called): a truncated call, or an executor that returned (or threw) synchronously, with an
   * outcome that stops nothing. The Presenter then moves on in the same call, as for a sync hook:
   * a stream with a few tool calls otherwise sent every record after each one through the
   * Writable's buffer and the parser's readable side (by callgrind, ~50 instructions a diff over
   * a whole 200 KB stream with three tools, since Node's stream code then runs less
   * specialised). Otherwise a promise, settled when the attempt is over: an async executor, a
   * checkpoint to wait for, or an outcome that stops the message, whose result is recorded a tick
   * later as before (an interrupt then never reaches the parser from inside its own `push`).
   */
  run(b: ToolUseBlock, done: (end: AttemptEnd) => void): Maybe {
    if (b.truncated === true) {
      this.record(b, 'error', b.isNativeToolCall
        ? `Tool [${b.name}] was not executed: its arguments were incomplete (not a complete JSON object when the call ended), so its parameters may be missing or cut.`
        : `Tool [${b.name}] was not executed: the call was cut off (the input ended before its closing tag), so its parameters may be incomplete.`)
      done(null)
      return undefined
    }
    if (this.checkpoint !== undefined && !this.rules.readOnly.has(b.name)) return this.afterCheckpoint(b, done)
    return this.attempt(b, done)
  }

  /** `run` for a tool that waits for the checkpoint first. */
  private async afterCheckpoint(b: ToolUseBlock, done: (end: AttemptEnd) => void): Promise<void> {
    const failed = await this.checkpoint
    if (this.events.destroyed) return
    if (failed !== undefined) {
      this.record(b, 'error', `Tool [${b.name}] was not executed: the checkpoint before it failed (${errorMessage(failed.error)}).`)
      // the model must read this result before going on, as after any other attempt
      done(this.rules.parallel ? null : 'tool-used')
      return
    }
    this.checkpoint = undefined // only the first write waits; later ones find it settled anyway
    await this.attempt(b, done)
  }

  /** Calls the executor on `b`: `run`'s outcome, once the checkpoint allows the call. */
  private attempt(b: ToolUseBlock, done: (end: AttemptEnd) => void): Maybe {
    this.events.emit('tool', b)
    const controller = new AbortController()
    const running: Running = { block: b, controller, slot: -1 }
    this.running = running
    let out: unknown
    try {
      out = this.rules.executeTool(b, { signal: controller.signal })
    } catch (err) {
      // thrown synchronously: recorded at once; if that stops the message, the Presenter still
      // goes on a tick later (the promise), as for any attempt that stops it
      const end = this.finish(running, done, 'error', errorMessage(err))
      return end === null ? undefined : Promise.resolve()
    }
    if (isThenable(out)) return this.awaitOutcome(running, done, out)
    let status: ToolStatus
    let content: string
    try {
      [status, content] = outcome(out)
    } catch (err) {
      status = 'error'
      content = errorMessage(err)
    }
    if (status === 'rejected' || !this.rules.parallel) {
      // the message stops here: the result comes a tick later, as an awaited sync value's did
      return Promise.resolve().then(() => { this.finish(running, done, status, content) })
    }
    this.finish(running, done, status, content)
    return undefined
  }

  private async awaitOutcome(running: Running, done: (end: AttemptEnd) => void, pending: PromiseLike<unknown>): Promise<void> {
    let status: ToolStatus
    let content: string
    try {
      [status, content] = outcome(await pending)
    } catch (err) {
      status = 'error'
      content = errorMessage(err)
    }
    this.finish(running, done, status, content)
  }

  /**
   * Records the attempt's outcome and calls `done`, returning what it was told; or, if the tool
   * was aborted meanwhile, puts its real outcome in place of the `error` that `abort` recorded.
   */
  private finish(running: Running, done: (end: AttemptEnd) => void, status: ToolStatus, content: string): AttemptEnd {
    const b = running.block
    if (this.running !== running) {
      // aborted meanwhile: `abort` recorded an `error`; the tool did run, so its real outcome
      // takes that place, marked, for the next turn to know about its side effects
      if (running.slot >= 0) {
        const r: ToolResult = { call_id: b.call_id, name: b.name, content, status, afterAbort: true }
        this.results[running.slot] = r
        this.events.emit('result', r)
      }
      return null
    }
    this.running = null
    this.record(b, status, content)
    const end: AttemptEnd = status === 'rejected' ? 'rejected' : this.rules.parallel ? null : 'tool-used'
    done(end)
    return end
  }

  /** A tool block still partial when its message ended: not run, an `error` result says why. */
  cutOff(b: ToolUseBlock): void {
    this.record(b, 'error', b.isNativeToolCall
      ? `Tool [${b.name}] was not executed: the call was cut off (the input ended before its arguments were complete).`
      : `Tool [${b.name}] was not executed: the call was cut off (the input ended before it was complete).`)
  }

  /** A tool is running (its executor was called and has not settled). */
  get inFlight(): boolean {
    return this.running !== null
  }

  /** The presentation stopped: the tool in flight gets an `error` result and its signal is aborted with `reason`. */
  abort(reason: unknown): void {
    const running = this.running
    if (running === null) return
    this.running = null
    running.slot = this.results.length
    this.record(running.block, 'error', `aborted: the presentation stopped while the tool ran (${errorMessage(reason)})`)
    running.controller.abort(reason)
  }

  /** The current message stops for `reason`: the interrupt's info. */
  stop(reason: InterruptInfo['reason']): InterruptInfo {
    const info: InterruptInfo = { reason, note: INTERRUPT_NOTES[reason] }
    this.last = info
    return info
  }

  /**
   * `skipped` results for the tools of the message stopped by `info` from block `from` on, each
   * once, however often this is called as more of the message arrives.
   */
  skipRest(blocks: readonly Block[], from: number, info: InterruptInfo): void {
    const why = info.reason === 'rejected'
      ? 'a previous tool was rejected'
      : 'a tool was already used in this message (only one tool may be used per message; assess its result before using the next one)'
    // by index and call_id, not from where the last call stopped: a block after the cursor may
    // have been replaced since (text that turned out to be the start of a tool call)
    for (let i = from; i < blocks.length; i++) {
      const b = blocks[i]!
      if (b.type !== 'tool_use') continue
      const key = `${i} ${b.call_id}`
      if (this.skipped.has(key)) continue
      this.skipped.add(key)
      this.record(b, 'skipped', `Tool [${b.name}] was not executed: ${why}.`)
    }
  }

  /** A new message: the one-tool rule starts over. */
  newMessage(): void {
    this.skipped.clear()
  }

  private record(b: ToolUseBlock, status: ToolStatus, content: string): void {
    const r: ToolResult = { call_id: b.call_id, name: b.name, content, status }
    this.results.push(r)
    this.events.emit('result', r)
  }
}
