/**
 * `tagstream parse [file]`: a model's text (file or stdin) to NDJSON diffs, snapshots, or the
 * final blocks.
 */
import { createBlockParser, type Block, type DiffRecord } from 'tagstream'
import { flag, parseCommand, UsageError } from './args.js'
import { LineWriter, openInput } from './io.js'
import { recordLine } from './ndjson.js'
import { parserFlags, parserFlagsHelp, readIds, readParserFlags, toParseOptions } from './parse-options.js'

/** Help of `parse`. */
export const parseHelp = `Usage: tagstream parse [options] [FILE]

Parses a model's text (FILE, or stdin when FILE is - or absent) as it streams and writes one
JSON record per line: the block diffs (add, append, set, complete, truncate, replace).

Options:
  --snapshots              the whole block array after each change instead of diffs
  --final                  only the final blocks, as one JSON array
  --ids counter|nanoid     call ids: call_1, call_2, … (deterministic) or random (default)
${parserFlagsHelp}
  -h, --help               this help

Example:
  printf 'Hi <read_file><path>a.ts</path></read_file>' | tagstream parse --ids counter
`

/** Runs `parse`. */
export async function parseCommandMain(argv: string[]): Promise<void> {
  const p = parseCommand('parse', argv, { ...parserFlags, snapshots: { type: 'boolean' }, final: { type: 'boolean' } })
  if (flag(p, 'help')) {
    process.stdout.write(parseHelp)
    return
  }
  if (p.positionals.length > 1) throw new UsageError(`expected at most one FILE, got ${p.positionals.length}`, 'parse')
  if (flag(p, 'snapshots') && flag(p, 'final')) throw new UsageError('--snapshots and --final exclude each other', 'parse')
  const options = toParseOptions(readParserFlags(p), readIds(p, 'nanoid'))
  const input = openInput(p.positionals[0])
  const parser = createBlockParser({ ...options, emit: flag(p, 'snapshots') ? 'snapshots' : 'diffs' })
  const out = new LineWriter(process.stdout, process.stdout.isTTY === true)
  input.stream.on('error', (err) => parser.destroy(err))
  input.stream.pipe(parser)
  const final = flag(p, 'final')
  try {
    for await (const r of parser as AsyncIterable<DiffRecord | Block[]>) {
      if (final) continue
      const wait = out.line(recordLine(r))
      if (wait !== undefined) await wait
    }
    if (final) out.line(JSON.stringify(parser.blocks))
  } finally {
    await out.flush()
  }
}
