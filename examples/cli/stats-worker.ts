/**
 * A worker thread of `stats --jobs N`: takes file names one at a time, sends back their counts.
 * Files are handed out one by one rather than split up front, so one big file does not leave
 * the other workers idle.
 */
import { parentPort } from 'node:worker_threads'
import { statsOfFile, type StatsJob } from './stats-core.js'
import { serialiseError } from './stats-pool.js'

const port = parentPort!
port.on('message', (msg: { index: number; file: string; job: StatsJob }) => {
  statsOfFile(msg.file, msg.job, (w) => port.postMessage({ type: 'warning', message: w.message })).then(
    (stats) => port.postMessage({ type: 'result', index: msg.index, stats }),
    (err: unknown) => port.postMessage({ type: 'error', index: msg.index, error: serialiseError(err) }),
  )
})
