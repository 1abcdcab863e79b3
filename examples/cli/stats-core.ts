/**
 * What `stats` measures in one file, and how results add up. Runs in the main thread
 * (--jobs 1) or in workers; results are plain data so they cross threads as they are.
 *
 * Every figure is a count or a sum, never an average, so that the stats of shards add up to
 * the stats of the whole (`stats --merge`): the parse speed is derived, textBytes / parseMs,
 * only when printed.
 */
import { parseWithDiagnostics, readLogBatches, sniffLog, ReplayDiffer, TagstreamError, type DiffRecord, type LogFormat, type ParseOptions } from 'tagstream'
import { InputError, openInput } from './io.js'
import { toParseOptions, type ParserFlags } from './parse-options.js'

/** Counts of one file, or of all of them. */
export interface FileStats {
  file: string
  format: LogFormat | 'mixed'
  /** Size of the file. */
  bytes: number
  /** Assistant turns. */
  turns: number
  /** Text of those turns (what is parsed), and provider reasoning. */
  textBytes: number
  reasoningBytes: number
  /** Tool calls written as tags, by name. */
  toolCalls: Record<string, number>
  toolCallsTotal: number
  /** Native tool calls (the provider's own tool calling, SPEC 8a), by name. */
  nativeCalls: Record<string, number>
  nativeCallsTotal: number
  /** Native calls whose arguments were not a complete JSON object: never run. */
  invalidNativeCalls: number
  /** Calls whose closing tag never came: the turn ended inside them. */
  unclosedCalls: number
  /** Turns that ended inside a tool's opening tag (`<execute_c`): a call cut before it began. */
  truncatedCalls: number
  /** Tags that look like tool calls but name no tool of the dialect, by name. */
  unknownTags: Record<string, number>
  /** Time spent parsing (the throughput is textBytes / parseMs). */
  parseMs: number
  /** Wall-clock time for the file (read + parse); in a total, the sum over its files. */
  wallMs: number
  /** Lines or events skipped with --on-error skip. */
  skipped: number
}

/** Options that reach every file, serialisable for worker threads. */
export interface StatsJob {
  flags: ParserFlags
  format?: LogFormat
  onError: 'fail' | 'skip'
}

const UNKNOWN_NAME = /^<\s*([^\s<>/]+)/u

/** Counts by name: no prototype, so a tool or tag called `__proto__` is a name like any other. */
export function counts(): Record<string, number> {
  return Object.create(null) as Record<string, number>
}

function add(into: Record<string, number>, key: string, n = 1): void {
  into[key] = (into[key] ?? 0) + n
}

/** A turn's text is parsed whole: past the parser's default `maxBytes` it is refused, named. */
const TURN_LIMIT = 64 * 1024 * 1024

/** Reads one file and counts. Warnings go to `warn` (skipped lines). Every error names the file. */
export async function statsOfFile(file: string, job: StatsJob, warn: (w: TagstreamError) => void): Promise<FileStats> {
  try {
    return await countFile(file, job, warn)
  } catch (err) {
    // a failure of the runtime (a string too long, a bug) says which file it was about
    if (err instanceof Error && !(err instanceof TagstreamError) && !(err instanceof InputError) && (err as NodeJS.ErrnoException).code === undefined) {
      throw new InputError(`${file}: ${err.message}`)
    }
    throw err
  }
}

async function countFile(file: string, job: StatsJob, warn: (w: TagstreamError) => void): Promise<FileStats> {
  const t0 = performance.now()
  const input = openInput(file)
  const options: ParseOptions = { ...toParseOptions(job.flags, 'counter'), final: true, idGenerator: () => '' }
  const s: FileStats = {
    file, format: job.format ?? 'chunklog', bytes: input.size ?? 0, turns: 0, textBytes: 0, reasoningBytes: 0,
    toolCalls: counts(), toolCallsTotal: 0, nativeCalls: counts(), nativeCallsTotal: 0, invalidNativeCalls: 0,
    unclosedCalls: 0, truncatedCalls: 0, unknownTags: counts(), parseMs: 0, wallMs: 0, skipped: 0,
  }
  const natives = new NativeCounter(s)
  // detected once, here: readLogBatches then takes the format as given
  const sniffed = job.format === undefined ? await sniffLog(input.stream) : { format: job.format, source: input.stream }
  const format = sniffed.format
  if (format !== undefined) s.format = format
  const batches = readLogBatches(sniffed.source, {
    file,
    onError: job.onError,
    onWarning: (w) => {
      s.skipped++
      warn(w)
    },
    ...(format === undefined ? {} : { format }),
  })
  let parts: string[] = []
  let bytes = 0
  for await (const batch of batches) for (const e of batch) {
    if (e.type === 'message') {
      parts = []
      bytes = 0
      s.turns++
      natives.push(e)
    } else if (e.type === 'tool' || e.type === 'tool_end') {
      natives.push(e)
    } else if (e.type === 'chunk') {
      if (e.kind === 'reasoning') s.reasoningBytes += Buffer.byteLength(e.text)
      else {
        // bytes, as the parser's maxBytes counts them (a character may be up to three)
        bytes += Buffer.byteLength(e.text)
        if (bytes > TURN_LIMIT) throw new TagstreamError('ERR_MESSAGE_TOO_LARGE', `${file}: turn-${s.turns}: message exceeds maxBytes (${TURN_LIMIT})`, { file, maxBytes: TURN_LIMIT })
        parts.push(e.text)
      }
    } else {
      natives.push(e)
      const text = parts.join('')
      parts = []
      s.textBytes += Buffer.byteLength(text)
      const p0 = performance.now()
      const { blocks, diagnostics } = parseWithDiagnostics(text, options)
      s.parseMs += performance.now() - p0
      for (const b of blocks) {
        if (b.type !== 'tool_use') continue
        add(s.toolCalls, b.name)
        s.toolCallsTotal++
      }
      for (const d of diagnostics) {
        if (d.code === 'unclosed-tool') s.unclosedCalls++
        else if (d.code === 'truncated-open-tag') s.truncatedCalls++
        else if (d.code === 'unknown-tool') add(s.unknownTags, UNKNOWN_NAME.exec(text.slice(d.offset, d.offset + 200))?.[1] ?? '?')
      }
    }
  }
  s.wallMs = performance.now() - t0
  return s
}

/**
 * Counts native calls: their events (and the turns' frames) go through a replay differ of their
 * own, so a call counts under its final name, and as invalid when its arguments were not a
 * complete JSON object (the block the Presenter would not run).
 */
class NativeCounter {
  private readonly differ: ReplayDiffer
  private names: string[] = []

  constructor(private readonly s: FileStats) {
    this.differ = new ReplayDiffer({ idGenerator: () => '', file: s.file })
  }

  push(e: Parameters<ReplayDiffer['push']>[0]): void {
    for (const r of this.differ.push(e)) this.record(r)
  }

  private record(r: DiffRecord): void {
    if (r.op === 'message') this.names = []
    else if ((r.op === 'add' || r.op === 'replace') && r.block.type === 'tool_use') {
      this.names[r.index] = r.block.name
      if (r.op === 'replace' && !r.block.partial) this.count(r.index, r.block.truncated === true)
    } else if (r.op === 'complete') this.count(r.index, false)
  }

  private count(i: number, invalid: boolean): void {
    add(this.s.nativeCalls, this.names[i] ?? '')
    this.s.nativeCallsTotal++
    if (invalid) this.s.invalidNativeCalls++
  }
}

/** The sums of several files (or of several totals: `fileCount` says how many files). */
export interface StatsTotal extends Omit<FileStats, 'file'> {
  fileCount: number
}

/** The figures that add up as they are. */
export const SUMMED = ['bytes', 'turns', 'textBytes', 'reasoningBytes', 'toolCallsTotal', 'nativeCallsTotal', 'invalidNativeCalls', 'unclosedCalls', 'truncatedCalls', 'parseMs', 'wallMs', 'skipped'] as const

/** A total of nothing. */
export function emptyTotal(): StatsTotal {
  return {
    fileCount: 0, format: 'mixed', bytes: 0, turns: 0, textBytes: 0, reasoningBytes: 0, toolCalls: counts(), toolCallsTotal: 0,
    nativeCalls: counts(), nativeCallsTotal: 0, invalidNativeCalls: 0, unclosedCalls: 0, truncatedCalls: 0, unknownTags: counts(), parseMs: 0, wallMs: 0, skipped: 0,
  }
}

/**
 * Adds `part` (one file's counts, or another total) into `into`. Associative and commutative,
 * so shards can be merged in any grouping and order.
 */
export function addInto(into: StatsTotal, part: FileStats | StatsTotal): StatsTotal {
  const files = 'fileCount' in part ? part.fileCount : 1
  if (files === 0) return into
  into.format = into.fileCount === 0 ? part.format : into.format === part.format ? into.format : 'mixed'
  into.fileCount += files
  for (const k of SUMMED) into[k] += part[k]
  for (const [n, c] of Object.entries(part.toolCalls)) add(into.toolCalls, n, c)
  for (const [n, c] of Object.entries(part.nativeCalls)) add(into.nativeCalls, n, c)
  for (const [n, c] of Object.entries(part.unknownTags)) add(into.unknownTags, n, c)
  return into
}

/** The sum of several files' counts. */
export function totalOf(files: FileStats[]): StatsTotal {
  const t = emptyTotal()
  for (const f of files) addInto(t, f)
  return t
}

/** Parse throughput in MB/s, derived from the sums (0 when nothing was parsed). */
export function parseMBps(s: { textBytes: number; parseMs: number }): number {
  return s.parseMs > 0 ? s.textBytes / 1e6 / (s.parseMs / 1000) : 0
}
