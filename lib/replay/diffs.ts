/**
 * Replay events to block diffs: each turn's text through a parser session, its provider
 * reasoning as reasoning blocks, framed by `message` / `end` markers (SPEC 5, NDJSON form).
 * @module
 */
import type { BlockDiff, DiffRecord } from '../types.js'
import { TagstreamError } from '../errors.js'
import { DiffSession, type StreamParseOptions } from '../streams/session.js'
import type { ReplayEvent } from './events.js'

/**
 * Options of {@link replayDiffs}: the stream-parse options of each turn's parser (profile,
 * dialect, robust options, `completeOnEnd`, `maxBytes` per turn, `diagnosticRecords`…), always
 * emitting diffs. Unlike a BlockParser, the default `idGenerator` is {@link counterIds}, global
 * to the replay, so that a replay is deterministic unless asked otherwise.
 * @example
 * ```ts
 * const opts: ReplayDiffOptions = { profile: 'robust', diagnosticRecords: true }
 * ```
 */
export type ReplayDiffOptions = Omit<StreamParseOptions, 'emit' | 'reparse'>

/**
 * Deterministic call ids `call_1`, `call_2`, …: each call of the returned function gives the
 * next one. One generator shared by a whole replay numbers calls across turns, so ids stay
 * unique in a conversation.
 * @example
 * ```ts
 * import { counterIds, createBlockParser } from 'tagstream'
 * const parser = createBlockParser({ idGenerator: counterIds() })
 * ```
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
 * Turns {@link ReplayEvent}s into the diff records of SPEC 5: `{op:'message', id, meta?}`, the
 * turn's diffs, `{op:'end', id}`, for each turn.
 *
 * Within a turn, text chunks go through a parser session exactly as through a BlockParser, so
 * applying a turn's diffs to `[]` gives `parseAssistantMessage(turn text)` with partial blocks
 * completed. Reasoning chunks (a provider's own reasoning stream) become a `reasoning` block:
 * added on its first non-blank text, grown by `append`, completed when text resumes or the turn
 * ends. The blocks of a turn are thus its segments in order: reasoning before the text that
 * followed it (the usual case, thinking first); text interrupted by reasoning is a separate
 * segment, parsed on its own, as the provider sent separate content blocks.
 *
 * Errors (a chunk outside a turn, a turn over `maxBytes`) are thrown from the iteration.
 * @example
 * ```ts
 * import { createReadStream } from 'node:fs'
 * import { readLog, replayDiffs } from 'tagstream'
 * for await (const d of replayDiffs(readLog(createReadStream('log.jsonl')))) console.log(JSON.stringify(d))
 * ```
 */
export async function* replayDiffs(
  events: AsyncIterable<ReplayEvent> | Iterable<ReplayEvent>,
  options: ReplayDiffOptions = {},
): AsyncGenerator<DiffRecord, void, undefined> {
  const sessionOptions: StreamParseOptions = { ...options, emit: 'diffs', idGenerator: options.idGenerator ?? counterIds() }
  const complete = options.completeOnEnd ?? true
  new DiffSession(sessionOptions) // checks the options before the first turn, not at its first chunk
  let turn: string | null = null
  let base = 0
  let text: DiffSession | null = null
  let reasoning: ReasoningSegment | null = null
  const out: BlockDiff[] = []

  /** Ends the open segment, returning its closing records. */
  const endSegment = (): DiffRecord[] => {
    const records: DiffRecord[] = []
    if (text !== null) {
      for (const r of text.end().records) records.push(shift(r as DiffRecord, base))
      base += text.blocks.length
      text = null
    } else if (reasoning !== null) {
      reasoning.end(out, complete)
      records.push(...out)
      out.length = 0
      base += reasoning.size
      reasoning = null
    }
    return records
  }

  for await (const e of events) {
    if (e.type === 'message') {
      if (turn !== null) {
        yield* endSegment()
        yield { op: 'end', id: turn }
      }
      turn = e.id
      base = 0
      yield e.meta === undefined ? { op: 'message', id: e.id } : { op: 'message', id: e.id, meta: e.meta }
    } else if (e.type === 'end') {
      if (turn === null) continue
      yield* endSegment()
      yield { op: 'end', id: turn }
      turn = null
    } else {
      if (turn === null) throw new TagstreamError('ERR_BAD_LOG', 'replay: a chunk outside any message (no message event before it)')
      if (e.kind === 'text') {
        if (text === null) {
          yield* endSegment()
          text = new DiffSession(sessionOptions)
        }
        for (const r of text.push(e.text).records) yield shift(r as DiffRecord, base)
      } else {
        if (reasoning === null) {
          yield* endSegment()
          reasoning = new ReasoningSegment(base)
        }
        reasoning.push(e.text, out)
        yield* out
        out.length = 0
      }
    }
  }
  if (turn !== null) {
    yield* endSegment()
    yield { op: 'end', id: turn }
  }
}
