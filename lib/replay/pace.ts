/**
 * Replay timing, and turns as nested streams for consumers that handle one message at a time.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { TagstreamError } from '../errors.js'
import type { DiffRecord, MessageMarker } from '../types.js'
import type { ReplayChunkEvent, ReplayEvent, ReplayMessageEvent } from './events.js'
import { framedGroups, type FrameRole } from './framed.js'

/**
 * Options of {@link pace}.
 * @example
 * ```ts
 * const opts: PaceOptions = { speed: 2 }
 * ```
 * @group Replay
 */
export interface PaceOptions {
  /** Multiplier of the recorded pace: 1 as recorded, 2 twice as fast, 0 (default) no waiting. */
  speed?: number
  /** Ends the waiting early; the iteration then throws an `AbortError`. */
  signal?: AbortSignal
}

/**
 * Delays each chunk until its recorded time, divided by `speed`, has passed since its turn
 * began (turns follow one another without a gap). A consumer slower than the recording is not
 * made to catch up with bursts: a late chunk goes at once and the schedule carries on. Only
 * timing changes; the events are the same, so the output of a replay does not depend on speed.
 * @example
 * ```ts
 * import { createReadStream } from 'node:fs'
 * import { readLog, pace, replayDiffs } from 'tagstream'
 * for await (const d of replayDiffs(pace(readLog(createReadStream('log.jsonl')), { speed: 1 }))) console.log(d)
 * ```
 * @group Replay
 */
export function pace(events: AsyncIterable<ReplayEvent> | Iterable<ReplayEvent>, options?: PaceOptions): AsyncGenerator<ReplayEvent, void, undefined>
/**
 * Batches (from {@link readLogBatches}) are paced too: a batch is cut where a chunk must wait.
 * @group Replay
 */
export function pace(batches: AsyncIterable<readonly ReplayEvent[]> | Iterable<readonly ReplayEvent[]>, options?: PaceOptions): AsyncGenerator<readonly ReplayEvent[], void, undefined>
export async function* pace(
  events: AsyncIterable<ReplayEvent | readonly ReplayEvent[]> | Iterable<ReplayEvent | readonly ReplayEvent[]>,
  options: PaceOptions = {},
): AsyncGenerator<ReplayEvent | readonly ReplayEvent[], void, undefined> {
  const speed = options.speed ?? 0
  if (typeof speed !== 'number' || !(speed >= 0) || !Number.isFinite(speed)) {
    throw new TagstreamError('ERR_INVALID_OPTION', `option speed must be a finite number >= 0, got ${JSON.stringify(speed)}`, { option: 'speed' })
  }
  if (speed === 0) {
    yield* events
    return
  }
  let start = performance.now()
  /** How long `e` must wait (ms), having reset the clock at a turn's start. */
  const delay = (e: ReplayEvent): number => {
    if (e.type === 'message') start = performance.now()
    else if (e.type === 'chunk' || e.type === 'tool') return start + e.t / speed - performance.now()
    return 0
  }
  for await (const item of events) {
    if (!Array.isArray(item)) {
      const wait = delay(item as ReplayEvent)
      if (wait >= 1) await sleep(wait, undefined, { signal: options.signal })
      yield item
      continue
    }
    let pending: ReplayEvent[] = []
    for (const e of item as readonly ReplayEvent[]) {
      const wait = delay(e)
      if (wait >= 1) {
        if (pending.length > 0) yield pending
        pending = []
        await sleep(wait, undefined, { signal: options.signal })
      }
      pending.push(e)
    }
    if (pending.length > 0) yield pending
  }
}

/**
 * One assistant turn as a stream of its own: its id, meta, and chunks.
 * @example
 * ```ts
 * for await (const turn of replayTurns(readLog(src))) {
 *   for await (const c of turn.chunks) process.stdout.write(c.text)
 * }
 * ```
 * @group Replay
 */
export interface ReplayTurn {
  /** The turn's id (`turn-<n>`). */
  id: string
  /** What the log says about the turn. */
  meta?: Record<string, unknown>
  /**
   * Its chunks, with their times; read them before asking for the next turn. Native tool call
   * events are not among them (they are not text): {@link replayDiffs} turns them into blocks.
   */
  chunks: AsyncIterable<ReplayChunkEvent>
}

/**
 * Groups replay events into turns, each a stream of its chunks, for consumers that take one
 * message at a time (a Presenter per message). Nothing is buffered: each turn's `chunks` reads
 * from the shared source, so a turn must be read (or abandoned) before the next is asked for;
 * the chunks of an abandoned turn are passed over.
 * @example
 * ```ts
 * import { createReadStream } from 'node:fs'
 * import { readLog, replayTurns, parseStream } from 'tagstream'
 * for await (const turn of replayTurns(readLog(createReadStream('history.json')))) {
 *   const text = (async function* () { for await (const c of turn.chunks) if (c.kind === 'text') yield c.text })()
 *   for await (const d of parseStream(text)) console.log(turn.id, d)
 * }
 * ```
 * @group Replay
 */
export async function* replayTurns(events: AsyncIterable<ReplayEvent> | Iterable<ReplayEvent>): AsyncGenerator<ReplayTurn, void, undefined> {
  const role = (e: ReplayEvent): FrameRole => e.type === 'message' ? 'open' : e.type === 'end' ? 'close' : e.type === 'chunk' ? 'item' : 'skip'
  for await (const { open, items } of framedGroups<ReplayEvent, ReplayMessageEvent, ReplayChunkEvent>(events, role)) {
    yield open.meta === undefined ? { id: open.id, chunks: items } : { id: open.id, meta: open.meta, chunks: items }
  }
}

/**
 * One message of a replay's diff stream, as a stream of its own: its id, meta, and diffs.
 * @example
 * ```ts
 * for await (const turn of diffTurns(replayDiffs(readLog(src)))) {
 *   await pipeline(turn.diffs, createPresenter({ executeTool }))
 * }
 * ```
 * @group Replay
 */
export interface DiffTurn {
  /** The message's id, from its `{op:'message'}` marker. */
  id: string
  /** What the log says about the message. */
  meta?: Record<string, unknown>
  /** Its records (diffs and diagnostic records) without the markers; read them before asking for the next turn. */
  diffs: AsyncIterable<DiffRecord>
}

/**
 * Cuts a stream of diff records framed by `{op:'message'}` … `{op:'end'}` markers (what
 * {@link replayDiffs} and the CLI's `replay` give) into one stream per message, for consumers
 * that take one message at a time, such as a Presenter per message whose interrupt ends only
 * that message. Nothing is buffered: a turn must be read (or abandoned) before the next is asked
 * for, and the rest of an abandoned turn is passed over.
 * @example
 * ```ts
 * import { createReadStream } from 'node:fs'
 * import { diffTurns, readLog, replayDiffs } from 'tagstream'
 * for await (const turn of diffTurns(replayDiffs(readLog(createReadStream('history.json'))))) {
 *   for await (const d of turn.diffs) console.log(turn.id, d)
 * }
 * ```
 * @group Replay
 */
export async function* diffTurns(records: AsyncIterable<DiffRecord> | Iterable<DiffRecord>): AsyncGenerator<DiffTurn, void, undefined> {
  const role = (r: DiffRecord): FrameRole => r.op === 'message' ? 'open' : r.op === 'end' ? 'close' : 'item'
  for await (const { open, items } of framedGroups<DiffRecord, MessageMarker, DiffRecord>(records, role)) {
    yield open.meta === undefined ? { id: open.id, diffs: items } : { id: open.id, meta: open.meta, diffs: items }
  }
}
