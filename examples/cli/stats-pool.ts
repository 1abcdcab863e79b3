/**
 * Spreads `stats` over worker threads: one file at a time per worker, results kept in the
 * order of the command line.
 */
import { Worker } from 'node:worker_threads'
import { TagstreamError, type TagstreamErrorCode } from 'tagstream'
import { InputError } from './io.js'
import type { FileStats, StatsJob } from './stats-core.js'

/** An error as plain data, to cross a thread. */
export interface SerialisedError {
  name: string
  message: string
  code?: string
}

/** An error as plain data. */
export function serialiseError(err: unknown): SerialisedError {
  const e = err as Error & { code?: unknown }
  return { name: e?.name ?? 'Error', message: String(e?.message ?? err), ...(typeof e?.code === 'string' ? { code: e.code } : {}) }
}

/** The error again, of a class the exit-code mapping knows. */
function reviveError(e: SerialisedError): Error {
  if (e.name === 'TagstreamError' && e.code !== undefined) return new TagstreamError(e.code as TagstreamErrorCode, e.message)
  if (e.name === 'InputError') return new InputError(e.message)
  return Object.assign(new Error(e.message), e.code === undefined ? {} : { code: e.code })
}

/** Counts `files` with `jobs` workers; the first failure stops them all. */
export async function statsInWorkers(files: string[], job: StatsJob, jobs: number, warn: (message: string) => void): Promise<FileStats[]> {
  const results: FileStats[] = new Array(files.length)
  const workers: Worker[] = []
  let next = 0
  try {
    await new Promise<void>((resolve, reject) => {
      let done = 0
      const give = (w: Worker): void => {
        if (next >= files.length) return
        const index = next++
        w.postMessage({ index, file: files[index], job })
      }
      for (let i = 0; i < Math.min(jobs, files.length); i++) {
        const w = new Worker(new URL('./stats-worker.js', import.meta.url))
        workers.push(w)
        w.on('error', reject)
        w.on('message', (m: { type: string; index: number; stats: FileStats; message: string; error: SerialisedError }) => {
          if (m.type === 'warning') warn(m.message)
          else if (m.type === 'error') reject(reviveError(m.error))
          else {
            results[m.index] = m.stats
            if (++done === files.length) resolve()
            else give(w)
          }
        })
        give(w)
      }
    })
  } finally {
    await Promise.all(workers.map((w) => w.terminate()))
  }
  return results
}
