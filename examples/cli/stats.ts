/**
 * `tagstream stats FILES…`: what the logs hold — turns, tool calls by name, calls cut off,
 * unknown tool-like tags — and how fast they parse. `--json` prints a mergeable partial
 * (counts and sums only) and `--merge` adds such partials up: map per shard, reduce by merge.
 */
import { LOG_FORMATS, type LogFormat } from 'tagstream'
import { choice, flag, num, parseCommand, UsageError } from './args.js'
import { parserFlags, parserFlagsHelp, readParserFlags } from './parse-options.js'
import { InputError, LineWriter, openInput, printWarning } from './io.js'
import { addInto, counts, emptyTotal, parseMBps, statsOfFile, totalOf, type FileStats, type StatsJob, type StatsTotal } from './stats-core.js'
import { statsInWorkers } from './stats-pool.js'

/** Help of `stats`. */
export const statsHelp = `Usage: tagstream stats [options] FILE...
       tagstream stats --merge [--json] [--total-only] [STATS.json... | -]

Counts, per log file and in total: assistant turns, tool calls by name, unclosed calls (the
turn ended before the closing tag), truncated calls (the turn ended inside an opening tag such
as <execute_c), unknown tool-like tags (<write_file>), bytes, and parse throughput (MB/s of
turn text through parseAssistantMessage). Files are logs of any format 'replay' reads.

--json prints one line {"kind":"tagstream-stats","version":1,"files":[…],"total":{…}} of
counts and sums only (the parse speed is textBytes / parseMs), so the outputs of runs over
separate shards add up: --merge reads such lines (files, or stdin when there is none or -;
several per input, one per line) and prints their sum, as a table or with --json as one
line that can be merged again.

Options:
  --json                   one JSON line (mergeable) instead of a table
  --merge                  add up the --json outputs of other runs instead of reading logs
  --total-only             with --json, leave out the per-file entries (for huge corpora)
  --jobs N                 spread the files over N worker threads (default 1: no workers)
  --format F               chunklog, cline, openai or anthropic (default: detected per file)
  --on-error fail|skip     a malformed line or event: fail (default), or warn and skip it
${parserFlagsHelp}
  -h, --help               this help

Examples:
  tagstream stats --jobs 4 ~/.cline/tasks/*/api_conversation_history.json
  # map: the stats of each shard of 100 files, 4 shards at a time, each into a file of its
  # own (parallel runs writing into one pipe could interleave); reduce: their sum
  mkdir parts
  find logs -type f -print0 | xargs -0 -n 100 -P 4 \\
    sh -c 'tagstream stats --json "$@" > "$(mktemp parts/XXXXXX)"' sh
  tagstream stats --merge parts/*
`

/** What a stats line says it is; anything else is not ours. */
const KIND = 'tagstream-stats'
const VERSION = 1
/** A --merge input line longer than this is refused (memory stays bounded). */
const MAX_LINE = 256 * 1024 * 1024

function mb(bytes: number): string {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : bytes >= 1e3 ? `${(bytes / 1e3).toFixed(1)} kB` : `${bytes} B`
}

function byName(counts: Record<string, number>): string {
  const entries = Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return entries.length === 0 ? '-' : entries.map(([n, c]) => `${n} ${c}`).join(', ')
}

/** The human form of one file's counts, or of a total (`file` then names it). */
export function formatStats(s: Omit<FileStats, 'file'> & { file: string }): string {
  const speed = s.parseMs > 0 ? `${parseMBps(s).toFixed(1)} MB/s` : '-'
  return [
    `${s.file} (${s.format}, ${mb(s.bytes)}${s.skipped > 0 ? `, ${s.skipped} skipped` : ''})`,
    `  turns ${s.turns} · tool calls ${s.toolCallsTotal}${s.nativeCallsTotal > 0 ? ` · native calls ${s.nativeCallsTotal}${s.invalidNativeCalls > 0 ? ` (${s.invalidNativeCalls} invalid)` : ''}` : ''} · unclosed ${s.unclosedCalls} · truncated ${s.truncatedCalls} · unknown tags ${Object.values(s.unknownTags).reduce((a, b) => a + b, 0)} · text ${mb(s.textBytes)} · parse ${speed}`,
    `  calls: ${byName(s.toolCalls)}`,
    ...(s.nativeCallsTotal > 0 ? [`  native: ${byName(s.nativeCalls)}`] : []),
    ...(Object.keys(s.unknownTags).length > 0 ? [`  unknown: ${byName(s.unknownTags)}`] : []),
  ].join('\n')
}

/** Runs `stats`. */
export async function statsCommandMain(argv: string[]): Promise<void> {
  const p = parseCommand('stats', argv, {
    ...parserFlags,
    json: { type: 'boolean' },
    merge: { type: 'boolean' },
    'total-only': { type: 'boolean' },
    jobs: { type: 'string' },
    format: { type: 'string' },
    'on-error': { type: 'string' },
  })
  if (flag(p, 'help')) {
    process.stdout.write(statsHelp)
    return
  }
  if (flag(p, 'total-only') && !flag(p, 'json')) throw new UsageError('--total-only goes with --json', 'stats')
  if (flag(p, 'merge')) return mergeCommand(p.positionals, p.values)
  const files = p.positionals
  if (files.length === 0) throw new UsageError('expected one or more FILEs', 'stats')
  if (files.includes('-')) throw new UsageError('stats reads files, not stdin', 'stats')
  const jobs = num(p, 'jobs', 1, 1, true)
  const format = choice<LogFormat>(p, 'format', LOG_FORMATS)
  const job: StatsJob = { flags: readParserFlags(p), onError: choice(p, 'on-error', ['fail', 'skip'] as const, 'fail'), ...(format === undefined ? {} : { format }) }
  const t0 = performance.now()
  let results: FileStats[]
  if (jobs === 1) {
    results = []
    for (const f of files) results.push(await statsOfFile(f, job, printWarning))
  } else {
    results = await statsInWorkers(files, job, jobs, printWarning)
  }
  const total = totalOf(results)
  if (flag(p, 'json')) {
    process.stdout.write(JSON.stringify(statsDocument(flag(p, 'total-only') ? [] : results, total)) + '\n')
    return
  }
  const lines = results.map(formatStats)
  if (results.length > 1) lines.push(formatStats({ ...total, file: `total (${results.length} files, ${((performance.now() - t0) / 1000).toFixed(2)} s)` }))
  process.stdout.write(lines.join('\n') + '\n')
}

/** The --json line: a mergeable partial. */
function statsDocument(files: FileStats[], total: StatsTotal): { kind: string; version: number; files: FileStats[]; total: StatsTotal } {
  return { kind: KIND, version: VERSION, files, total }
}

const LOG_OPTIONS = ['jobs', 'format', 'on-error', ...Object.keys(parserFlags)]

/**
 * `stats --merge`: the sum of stats lines. Per-file entries are written out as they are read
 * (their order is the inputs'), so memory holds one line at a time, whatever the corpus.
 */
async function mergeCommand(inputs: string[], values: Record<string, unknown>): Promise<void> {
  const misplaced = LOG_OPTIONS.find((o) => values[o] !== undefined)
  if (misplaced !== undefined) throw new UsageError(`--${misplaced} applies to logs, not to --merge (which reads the --json output of stats)`, 'stats')
  const json = values.json === true
  const withFiles = values['total-only'] !== true
  const total = emptyTotal()
  const out = new LineWriter(process.stdout, false)
  let first = true
  if (json) out.text(`{"kind":${JSON.stringify(KIND)},"version":${VERSION},"files":[`)
  for (const name of inputs.length === 0 ? ['-'] : inputs) {
    const input = openInput(name)
    let docs = 0
    for await (const { line, n } of lines(input.stream, input.name)) {
      if (line.trim() === '') continue
      const doc = readDocument(line, `${input.name}: line ${n}`)
      docs++
      addInto(total, doc.total)
      for (const f of doc.files) {
        if (json && withFiles) {
          out.text((first ? '' : ',') + JSON.stringify(f))
          first = false
        } else if (!json) {
          out.text(formatStats(f) + '\n')
        }
      }
      const wait = out.settle()
      if (wait !== undefined) await wait
    }
    if (docs === 0) throw new InputError(`${input.name}: no stats line (the output of 'tagstream stats --json'); is it from a run that failed?`)
  }
  if (json) out.line(`],"total":${JSON.stringify(total)}}`)
  else out.line(formatStats({ ...total, file: `total (${total.fileCount} files)` }))
  await out.flush()
}

/** The lines of a stream with their numbers; a line over MAX_LINE is an error naming it. */
async function* lines(stream: NodeJS.ReadableStream, name: string): AsyncGenerator<{ line: string; n: number }, void, undefined> {
  const decoder = new TextDecoder('utf-8')
  let parts: string[] = []
  let size = 0
  let n = 1
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const text = decoder.decode(chunk, { stream: true })
    let at = 0
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', at)) {
      parts.push(text.slice(at, nl))
      yield { line: parts.join(''), n: n++ }
      parts = []
      size = 0
      at = nl + 1
    }
    const rest = text.slice(at)
    size += rest.length
    if (size > MAX_LINE) throw new InputError(`${name}: line ${n}: longer than ${MAX_LINE / 1024 / 1024} MiB (write shards with --total-only)`)
    if (rest !== '') parts.push(rest)
  }
  parts.push(decoder.decode())
  const last = parts.join('')
  if (last !== '') yield { line: last, n }
}

/** One stats line, checked field by field: it comes from a file, so it is hostile. */
function readDocument(line: string, where: string): { files: FileStats[]; total: StatsTotal } {
  let doc: unknown
  try {
    doc = JSON.parse(line)
  } catch (err) {
    throw new InputError(`${where}: not JSON (${(err as Error).message})`)
  }
  const bad = (what: string): InputError => new InputError(`${where}: ${what}`)
  if (!isRecord(doc) || doc.kind !== KIND) throw bad(`not the output of 'tagstream stats --json' (no "kind":"${KIND}")`)
  if (doc.version !== VERSION) throw bad(`stats version ${JSON.stringify(doc.version)}, this tagstream reads version ${VERSION}`)
  if (!Array.isArray(doc.files)) throw bad('"files" is not an array')
  const figures = readFigures(doc.total, 'total', bad)
  const fileCount = (doc.total as Record<string, unknown>).fileCount
  if (!isCount(fileCount)) throw bad(`total.fileCount: expected a count, got ${JSON.stringify(fileCount)}`)
  if (doc.files.length > fileCount) throw bad(`${doc.files.length} files but total.fileCount ${fileCount}`)
  const files = doc.files.map((f: unknown, i: number): FileStats => {
    const file = isRecord(f) ? f.file : undefined
    if (typeof file !== 'string') throw bad(`files[${i}].file: expected a string, got ${JSON.stringify(file)}`)
    return { file, ...readFigures(f, `files[${i}]`, bad) }
  })
  return { files, total: { fileCount, ...figures } }
}

const COUNTED = ['bytes', 'turns', 'textBytes', 'reasoningBytes', 'toolCallsTotal', 'nativeCallsTotal', 'invalidNativeCalls', 'unclosedCalls', 'truncatedCalls', 'skipped'] as const
/** Figures added after version 1 was first written: absent in older output, they read as 0 (or no names). */
const LATER: readonly string[] = ['nativeCalls', 'nativeCallsTotal', 'invalidNativeCalls']
const FORMATS: readonly string[] = [...LOG_FORMATS, 'mixed']

/** The figures in the order `stats` writes them (after "file" or "fileCount"). */
const FIGURES = ['format', 'bytes', 'turns', 'textBytes', 'reasoningBytes', 'toolCalls', 'toolCallsTotal', 'nativeCalls', 'nativeCallsTotal', 'invalidNativeCalls', 'unclosedCalls', 'truncatedCalls', 'unknownTags', 'parseMs', 'wallMs', 'skipped'] as const

/**
 * The figures of a file or a total, copied into a fresh object in the order `stats` writes
 * them: the input's own keys never reach it, and counts by name go into prototype-less objects.
 */
function readFigures(v: unknown, path: string, bad: (what: string) => InputError): Omit<FileStats, 'file'> {
  if (!isRecord(v)) throw bad(`${path}: expected an object`)
  const s: Record<string, unknown> = {}
  for (const k of FIGURES) {
    let x = v[k]
    if (x === undefined && LATER.includes(k)) x = k === 'nativeCalls' ? {} : 0
    if (k === 'format') {
      if (typeof x !== 'string' || !FORMATS.includes(x)) throw bad(`${path}.format: expected one of ${FORMATS.join(', ')}, got ${JSON.stringify(x)}`)
      s[k] = x
    } else if (k === 'toolCalls' || k === 'unknownTags' || k === 'nativeCalls') {
      if (!isRecord(x)) throw bad(`${path}.${k}: expected an object of counts by name`)
      const into = counts()
      for (const [name, c] of Object.entries(x)) {
        if (!isCount(c)) throw bad(`${path}.${k}[${JSON.stringify(name)}]: expected a count, got ${JSON.stringify(c)}`)
        into[name] = c
      }
      s[k] = into
    } else {
      const counted = (COUNTED as readonly string[]).includes(k)
      if (counted ? !isCount(x) : typeof x !== 'number' || !Number.isFinite(x) || x < 0) throw bad(`${path}.${k}: expected ${counted ? 'a count' : 'a number >= 0'}, got ${JSON.stringify(x)}`)
      s[k] = x
    }
  }
  return s as unknown as Omit<FileStats, 'file'>
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
}
