/**
 * The whole replay as one Node stream, for `pipeline` users.
 * @module
 */
import { Duplex } from 'node:stream'
import { readLogBatches, type ReadLogOptions } from './detect.js'
import { replayDiffs, type ReplayDiffOptions } from './diffs.js'
import { pace, type PaceOptions } from './pace.js'

/**
 * Options of {@link createReplayStream}: how to read the log, how fast to replay it, how to
 * parse each turn.
 * @example
 * ```ts
 * const opts: ReplayStreamOptions = { file: 'history.json', format: 'cline', speed: 0, profile: 'robust' }
 * ```
 * @group Replay
 */
export interface ReplayStreamOptions extends ReadLogOptions, ReplayDiffOptions, PaceOptions {}

/**
 * A Duplex: the bytes of a log in, diff records out (object mode), framed per assistant turn
 * by `message` / `end` markers. The composition of {@link readLog}, {@link pace} and
 * {@link replayDiffs}, with the backpressure of an ordinary stream: the log is read only as
 * fast as the diffs are consumed. Errors (`ERR_BAD_LOG` naming the file and line or event)
 * destroy the stream.
 * @example
 * ```ts
 * import { createReadStream } from 'node:fs'
 * import { pipeline } from 'node:stream/promises'
 * import { createReplayStream } from 'tagstream'
 * await pipeline(createReadStream('log.jsonl'), createReplayStream({ file: 'log.jsonl' }), async function* (diffs) {
 *   for await (const d of diffs) console.log(JSON.stringify(d))
 * })
 * ```
 * @group Replay
 */
export function createReplayStream(options: ReplayStreamOptions = {}): Duplex {
  return Duplex.from(async function* (source: AsyncIterable<string | Uint8Array>) {
    yield* replayDiffs(pace(readLogBatches(source, options), options), options)
  })
}
