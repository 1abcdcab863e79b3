/**
 * A progress bar on stderr for long replays (cli-progress), counting the bytes read.
 */
import cliProgress from 'cli-progress'
import type { Readable } from 'node:stream'

/** Files smaller than this replay too fast for a bar to help. */
const MIN_BYTES = 1 << 20

/**
 * Whether to show a bar: a known, large size, stderr a terminal, and stdout not the same
 * terminal (the bar would be torn by the output it sits under).
 */
export function wantProgress(size: number | undefined, disabled: boolean): boolean {
  return !disabled && size !== undefined && size >= MIN_BYTES && process.stderr.isTTY === true && process.stdout.isTTY !== true
}

/** The stream's chunks, counted into a bar of `size` bytes; the bar goes when the stream ends. */
export async function* withProgress(stream: Readable, size: number): AsyncGenerator<Buffer, void, undefined> {
  const bar = new cliProgress.SingleBar({
    format: 'replay [{bar}] {percentage}% | {value}/{total} MB | ETA {eta_formatted}',
    formatValue: (v, _o, type) => (type === 'value' || type === 'total' ? (v / 1e6).toFixed(1) : String(v)),
    clearOnComplete: true,
    hideCursor: true,
    stream: process.stderr,
  }, cliProgress.Presets.shades_classic)
  bar.start(size, 0)
  let read = 0
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      read += chunk.byteLength
      bar.update(read)
      yield chunk
    }
  } finally {
    bar.stop()
  }
}
