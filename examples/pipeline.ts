#!/usr/bin/env node
/**
 * The smallest useful composition: text in, block diffs out, as NDJSON.
 *
 *   node dist/examples/pipeline.js [file] [--chunk N]
 *
 * Reads a file (default: the bundled examples/messages/refactor.txt), streams it in N-byte
 * chunks (default 16) as a model would, and prints one diff per line. `pipeline` wires the
 * source, the BlockParser and the sink with backpressure and error propagation; an error in
 * any of them rejects the promise and destroys the others.
 */
import { createReadStream } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { pipeline } from 'node:stream/promises'
import through2 from 'through2'
import { createBlockParser, type DiffRecord } from 'tagstream'

const args = process.argv.slice(2)
const at = args.indexOf('--chunk')
const chunk = at >= 0 ? Number(args.splice(at, 2)[1]) : 16
const file = args[0] ?? fileURLToPath(new URL('../../examples/messages/refactor.txt', import.meta.url))

const parser = createBlockParser()
// objects in, NDJSON lines out; stdout is the last stage, so its backpressure reaches the file
const ndjson = through2.obj(function (diff: DiffRecord, _enc: BufferEncoding, done: (err: Error | null, line: string) => void) {
  done(null, JSON.stringify(diff) + '\n')
})

try {
  await pipeline(createReadStream(file, { highWaterMark: chunk }), parser, ndjson, process.stdout)
  process.stderr.write(`${parser.blocks.length} blocks: ${parser.blocks.map((b) => (b.type === 'tool_use' ? b.name : b.type)).join(', ')}\n`)
} catch (err) {
  // a closed pipe (`| head`) is the reader saying it has enough
  if ((err as NodeJS.ErrnoException).code === 'EPIPE') process.exit(0)
  process.stderr.write(`pipeline failed: ${(err as Error).message}\n`)
  process.exitCode = 1
}
