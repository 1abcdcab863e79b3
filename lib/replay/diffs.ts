/**
 * Replay events to block diffs: each turn's text through a parser session, its provider
 * reasoning as reasoning blocks, framed by `message` / `end` markers (SPEC 5, NDJSON form).
 * @module
 */
import type { BlockDiff, DiffRecord } from '../types.js'
import { TagstreamError } from '../errors.js'
import { DEFAULT_MAX_BYTES, DiffSession, type StreamParseOptions } from '../streams/session.js'
import { NativeCalls } from '../native/calls.js'
import type { ReplayEvent } from './events.js'


/**
 * Options of {@link replayDiffs}: the stream-parse options of each turn's parser (profile,
 * dialect, robust options, `completeOnEnd`, `maxBytes` per turn, `diagnosticRecords`…), always
 * emitting diffs, and `file`, the log's name in error messages (a turn over `maxBytes` fails
 * with `<file>: turn-3: message exceeds maxBytes …`). Unlike a BlockParser, the default
 * `idGenerator` is {@link counterIds}, global to the replay, so that a replay is deterministic
 * unless asked otherwise.
 * @example
 * ```ts
 * const opts: ReplayDiffOptions = { profile: 'robust', diagnosticRecords: true, file: 'log.jsonl' }
 * ```
 * @group Replay
 */
export type ReplayDiffOptions = Omit<StreamParseOptions, 'emit' | 'reparse'> & {
  /** Name of the log in error messages (default `<input>`). */
  file?: string
}

/**
 * Deterministic call ids `call_1`, `call_2`, …: each call of the returned function gives the
 * next one. One generator shared by a whole replay numbers calls across turns, so ids stay
 * unique in a conversation.
 * @example
 * ```ts
 * import { counterIds, createBlockParser } from 'tagstream'
 * const parser = createBlockParser({ idGenerator: counterIds() })
 * ```
 * @group Replay
 */
export function counterIds(prefix = 'call_'): () => string {
  let n = 0
  return () => `${prefix}${++n}`
}

/** Shifts a segment's diff by the number of blocks before the segment. */
function shift(r: DiffRecord, base: number): DiffRecord {
  if (base === 0) return r
  switch (r.op) {
    case 'add': case 'append': case 'set': case 'complete': case 'replace':
      return { ...r, index: r.index + base }
    case 'truncate':
      return { ...r, length: r.length + base }
    default:
      return r
  }
}

/** Provider reasoning as one block, shown trimmed like every other block. */
class ReasoningSegment {
  private started = false
  private added = false
  private pendingSpace = ''

  constructor(private readonly index: number) {}

  /** Number of blocks this segment holds. */
  get size(): number {
    return this.added ? 1 : 0
  }

  push(text: string, out: BlockDiff[]): void {
    let s = this.started ? this.pendingSpace + text : text.trimStart()
    if (s.length === 0) return
    this.started = true
    const shown = s.trimEnd()
    this.pendingSpace = s.slice(shown.length)
    s = shown
    if (s.length === 0) return
    if (!this.added) {
      this.added = true
      out.push({ op: 'add', index: this.index, block: { type: 'reasoning', reasoning: s, partial: true } })
    } else {
      out.push({ op: 'append', index: this.index, path: 'reasoning', text: s })
    }
  }

  end(out: BlockDiff[], complete: boolean): void {
    if (this.added && complete) out.push({ op: 'complete', index: this.index })
  }
}

/**
 * Turns {@link ReplayEvent}s into the diff records of SPEC 5, synchronously, one event at a
 * time: `{op:'message', id, meta?}`, the turn's diffs, `{op:'end', id}`, for each turn.
 *
 * Within a turn, text chunks go through a parser session exactly as through a BlockParser, so
 * applying a turn's diffs to `[]` gives `parseAssistantMessage(turn text)` with partial blocks
 * completed. Reasoning chunks (a provider's own reasoning stream) become a `reasoning` block:
 * added on its first non-blank text, grown by `append`, completed when text resumes or the turn
 * ends. The blocks of a turn are thus its segments in order: reasoning before the text that
 * followed it (the usual case, thinking first); text interrupted by reasoning is a separate
 * segment, parsed on its own, as the provider sent separate content blocks.
 *
 * Native tool calls (`tool` events, SPEC 8a) become `tool_use` blocks with `isNativeToolCall:
 * true` and the provider's id (whatever `idGenerator` is), each added after the blocks of the
 * turn so far when its first piece arrives; text that comes after it is a new segment after
 * it, so blocks never move once added. String params grow by `append`, other values appear
 * whole; a call completes at its `tool_end` event or at the end of the turn, and if its
 * arguments are not then a complete JSON object it is replaced by a block with the params read
 * so far and `truncated: true`, with an `invalid-tool-arguments` diagnostic (a record with
 * `diagnosticRecords`). The argument text of a turn's native calls is limited to `maxBytes`
 * too (UTF-8, counted apart from the turn's text): past it `push` throws
 * `ERR_MESSAGE_TOO_LARGE`.
 *
 * `push` throws a {@link TagstreamError} for a chunk outside a turn, or a turn over `maxBytes`.
 * @example
 * ```ts
 * import { ReplayDiffer } from 'tagstream'
 * const differ = new ReplayDiffer()
 * differ.push({ type: 'message', id: 'turn-1' })           // [{ op: 'message', id: 'turn-1' }]
 * differ.push({ type: 'chunk', kind: 'text', text: 'Hi', t: 0 }) // [{ op: 'add', … }]
 * differ.push({ type: 'end', id: 'turn-1' })               // [{ op: 'complete', index: 0 }, { op: 'end', id: 'turn-1' }]
 * ```
 * @group Replay
 */
export class ReplayDiffer {
  private readonly sessionOptions: StreamParseOptions
  private readonly complete: boolean
  private readonly file: string
  private readonly maxBytes: number
  /** UTF-8 bytes of provider reasoning in the turn: it counts towards `maxBytes` as text does. */
  private reasoningBytes = 0
  private turn: string | null = null
  private base = 0
  private text: DiffSession | null = null
  private reasoning: ReasoningSegment | null = null
  private natives: NativeCalls
  /** UTF-8 size of the native argument text of this turn. */
  private nativeBytes = 0
  private readonly ids: () => string
  private readonly records: boolean

  /** @param options - see {@link ReplayDiffOptions} */
  constructor(options: ReplayDiffOptions = {}) {
    const { file, ...parse } = options
    this.file = file ?? '<input>'
    this.maxBytes = parse.maxBytes ?? DEFAULT_MAX_BYTES
    this.ids = parse.idGenerator ?? counterIds()
    this.sessionOptions = { ...parse, emit: 'diffs', idGenerator: this.ids }
    this.complete = options.completeOnEnd ?? true
    this.newSession() // checks the options now, not at the first chunk
    this.records = options.diagnosticRecords ?? false
    this.natives = this.newNatives()
  }

  private newNatives(): NativeCalls {
    return new NativeCalls((d) => {
      if (this.records) this.sink.push({ op: 'diagnostic', ...d })
    })
  }

  /** Where the current text session's records go, shifted past the turn's earlier segments. */
  private sink: DiffRecord[] = []

  private newSession(): DiffSession {
    return new DiffSession(this.sessionOptions, {
      record: (r) => this.sink.push(shift(r as DiffRecord, this.base)),
      diagnostic: () => undefined,
    })
  }

  /** The records one event gives (often none or one). */
  push(e: ReplayEvent): DiffRecord[] {
    const out: DiffRecord[] = []
    if (e.type === 'message') {
      this.closeTurn(out)
      this.turn = e.id
      this.base = 0
      this.reasoningBytes = 0
      out.push(e.meta === undefined ? { op: 'message', id: e.id } : { op: 'message', id: e.id, meta: e.meta })
    } else if (e.type === 'end') {
      this.closeTurn(out)
    } else if (e.type === 'tool' || e.type === 'tool_end') {
      if (this.turn === null) throw new TagstreamError('ERR_BAD_LOG', `${this.file}: a tool call outside any message (no message event before it)`, { file: this.file })
      this.sink = out
      if (e.type === 'tool') this.tool(e.key, e.id, e.name, e.args, out as BlockDiff[])
      else if (e.key === undefined) this.natives.endAll(e.cut === true, out as BlockDiff[])
      else this.natives.end(e.key, e.cut === true, out as BlockDiff[])
    } else {
      if (this.turn === null) throw new TagstreamError('ERR_BAD_LOG', `${this.file}: a chunk outside any message (no message event before it)`, { file: this.file })
      if (e.kind === 'text') {
        if (this.text === null) {
          this.endSegment(out)
          this.text = this.newSession()
        }
        this.sink = out
        try {
          this.text.push(e.text)
        } catch (err) {
          throw this.named(err)
        }
      } else {
        this.reasoningBytes += Buffer.byteLength(e.text)
        if (this.reasoningBytes > this.maxBytes) {
          throw new TagstreamError('ERR_MESSAGE_TOO_LARGE', `${this.file}: ${this.turn}: reasoning exceeds maxBytes (${this.maxBytes})`, { file: this.file, turn: this.turn, maxBytes: this.maxBytes })
        }
        if (this.reasoning === null) {
          this.endSegment(out)
          this.reasoning = new ReasoningSegment(this.base)
        }
        this.reasoning.push(e.text, out as BlockDiff[])
      }
    }
    return out
  }

  private tool(key: string, id: string | undefined, name: string | undefined, args: string, out: BlockDiff[]): void {
    this.nativeBytes += Buffer.byteLength(args)
    if (this.nativeBytes > this.maxBytes) {
      throw new TagstreamError('ERR_MESSAGE_TOO_LARGE', `${this.file}: ${this.turn}: native tool call arguments exceed maxBytes (${this.maxBytes})`, { file: this.file, turn: this.turn, maxBytes: this.maxBytes })
    }
    if (!this.natives.has(key)) {
      this.endSegment(out)
      this.natives.start(key, { id: id ?? this.ids(), name: name ?? '' }, this.base, out)
      this.base++
    } else if (name !== undefined) {
      this.natives.name(key, name, out)
    }
    this.natives.args(key, args, out)
  }

  /** A parser error of the current turn, named by file and turn (the parser knows neither). */
  private named(err: unknown): unknown {
    if (!(err instanceof TagstreamError)) return err
    const what = err.message.replace(/^BlockParser: /u, '')
    return new TagstreamError(err.code, `${this.file}: ${this.turn}: ${what}`, { ...err.details, file: this.file, turn: this.turn })
  }

  /** Closes a turn left open by the events (a log cut short): its last records. */
  end(): DiffRecord[] {
    const out: DiffRecord[] = []
    this.closeTurn(out)
    return out
  }

  private closeTurn(out: DiffRecord[]): void {
    if (this.turn === null) return
    this.endSegment(out)
    this.sink = out
    // calls the turn did not end were cut (with completeOnEnd: false they stay partial, as tags do)
    if (this.complete) this.natives.endAll(true, out as BlockDiff[])
    this.natives = this.newNatives()
    this.nativeBytes = 0
    out.push({ op: 'end', id: this.turn })
    this.turn = null
  }

  private endSegment(out: DiffRecord[]): void {
    if (this.text !== null) {
      this.sink = out
      this.text.end()
      this.base += this.text.blocks.length
      this.text = null
    } else if (this.reasoning !== null) {
      this.reasoning.end(out as BlockDiff[], this.complete)
      this.base += this.reasoning.size
      this.reasoning = null
    }
  }
}

/**
 * {@link ReplayDiffer} over an (async) iterable of events, or of batches of events (from
 * {@link readLogBatches}): the diff records one by one.
 * @example
 * ```ts
 * import { createReadStream } from 'node:fs'
 * import { readLog, replayDiffs } from 'tagstream'
 * for await (const d of replayDiffs(readLog(createReadStream('log.jsonl')))) console.log(JSON.stringify(d))
 * ```
 * @group Replay
 */
export async function* replayDiffs(
  events: AsyncIterable<ReplayEvent | readonly ReplayEvent[]> | Iterable<ReplayEvent | readonly ReplayEvent[]>,
  options: ReplayDiffOptions = {},
): AsyncGenerator<DiffRecord, void, undefined> {
  const differ = new ReplayDiffer(options)
  for await (const e of events) {
    if (isBatch(e)) {
      for (const one of e) yield* differ.push(one)
    } else {
      yield* differ.push(e)
    }
  }
  yield* differ.end()
}

function isBatch(e: ReplayEvent | readonly ReplayEvent[]): e is readonly ReplayEvent[] {
  return Array.isArray(e)
}
