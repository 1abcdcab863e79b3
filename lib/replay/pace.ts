/**
 * Replay timing, and turns as nested streams for consumers that handle one message at a time.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { TagstreamError } from '../errors.js'
import type { ReplayChunkEvent, ReplayEvent } from './events.js'

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
  const it = (Symbol.asyncIterator in events
    ? (events as AsyncIterable<ReplayEvent>)[Symbol.asyncIterator]()
    : (events as Iterable<ReplayEvent>)[Symbol.iterator]()) as AsyncIterator<ReplayEvent> | Iterator<ReplayEvent>
  let inTurn = false
  let pending: ReplayEvent | undefined // a message event read by a turn's chunks
  const next = async (): Promise<ReplayEvent | undefined> => {
    if (pending !== undefined) {
      const e = pending
      pending = undefined
      return e
    }
    const r = await it.next()
    return r.done === true ? undefined : r.value
  }
  try {
    for (;;) {
      let e = await next()
      // the chunks of a turn its reader abandoned
      while (inTurn && e !== undefined && e.type !== 'message' && e.type !== 'end') e = await next()
      inTurn = false
      if (e === undefined) return
      if (e.type !== 'message') continue
      const { id, meta } = e
      inTurn = true
      const chunks = async function* (): AsyncGenerator<ReplayChunkEvent, void, undefined> {
        while (inTurn) {
          let c = await next()
          while (c !== undefined && (c.type === 'tool' || c.type === 'tool_end')) c = await next()
          if (c === undefined || c.type !== 'chunk') {
            if (c?.type === 'message') pending = c
            inTurn = false
            return
          }
          yield c
        }
      }
      yield meta === undefined ? { id, chunks: chunks() } : { id, meta, chunks: chunks() }
    }
  } finally {
    await it.return?.()
  }
}
