/**
 * `tagstream stats FILES…`: what the logs hold — turns, tool calls by name, calls cut off,
 * unknown tool-like tags — and how fast they parse.
 */
import { LOG_FORMATS, type LogFormat } from 'tagstream'
import { choice, flag, num, parseCommand, UsageError } from './args.js'
import { parserFlags, parserFlagsHelp, readParserFlags } from './parse-options.js'
import { printWarning } from './io.js'
import { statsOfFile, totalOf, type FileStats, type StatsJob } from './stats-core.js'
import { statsInWorkers } from './stats-pool.js'

/** Help of `stats`. */
export const statsHelp = `Usage: tagstream stats [options] FILE...

Counts, per log file and in total: assistant turns, tool calls by name, unclosed calls (the
turn ended before the closing tag), truncated calls (the turn ended inside an opening tag such
as <execute_c), unknown tool-like tags (<write_file>), bytes, and parse throughput (MB/s of
turn text through parseAssistantMessage). Files are logs of any format 'replay' reads.

Options:
  --json                   one JSON document {"files":[…],"total":{…}} instead of a table
  --jobs N                 spread the files over N worker threads (default 1: no workers)
  --format F               chunklog, cline, openai or anthropic (default: detected per file)
  --on-error fail|skip     a malformed line or event: fail (default), or warn and skip it
${parserFlagsHelp}
  -h, --help               this help

Example:
  tagstream stats --jobs 4 ~/.cline/tasks/*/api_conversation_history.json
`

function mb(bytes: number): string {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : bytes >= 1e3 ? `${(bytes / 1e3).toFixed(1)} kB` : `${bytes} B`
}

function byName(counts: Record<string, number>): string {
  const entries = Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return entries.length === 0 ? '-' : entries.map(([n, c]) => `${n} ${c}`).join(', ')
}

/** The human form of one file's counts. */
export function formatStats(s: FileStats): string {
  const speed = s.parseMs > 0 ? `${s.parseMBps.toFixed(1)} MB/s` : '-'
  return [
    `${s.file} (${s.format}, ${mb(s.bytes)}${s.skipped > 0 ? `, ${s.skipped} skipped` : ''})`,
    `  turns ${s.turns} · tool calls ${s.toolCallsTotal} · unclosed ${s.unclosedCalls} · truncated ${s.truncatedCalls} · unknown tags ${Object.values(s.unknownTags).reduce((a, b) => a + b, 0)} · text ${mb(s.textBytes)} · parse ${speed}`,
    `  calls: ${byName(s.toolCalls)}`,
    ...(Object.keys(s.unknownTags).length > 0 ? [`  unknown: ${byName(s.unknownTags)}`] : []),
  ].join('\n')
}

/** Runs `stats`. */
export async function statsCommandMain(argv: string[]): Promise<void> {
  const p = parseCommand('stats', argv, {
    ...parserFlags,
    json: { type: 'boolean' },
    jobs: { type: 'string' },
    format: { type: 'string' },
    'on-error': { type: 'string' },
  })
  if (flag(p, 'help')) {
    process.stdout.write(statsHelp)
    return
  }
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
  const total = totalOf(results, performance.now() - t0)
  if (flag(p, 'json')) {
    process.stdout.write(JSON.stringify({ files: results, total }) + '\n')
    return
  }
  const lines = results.map(formatStats)
  if (results.length > 1) lines.push(formatStats({ ...total, file: `total (${results.length} files, ${(total.wallMs / 1000).toFixed(2)} s)` }))
  process.stdout.write(lines.join('\n') + '\n')
}
