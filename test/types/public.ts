// Type tests of the public API, compiled by `npm run typecheck` (part of `npm test`) against the
// BUILT package (`tagstream` resolves to dist/index.d.ts, as in a user's project). A wrong or
// `any` type fails the compile: each `Equal` must hold, and each `@ts-expect-error` line must be
// an error. Nothing here runs.
import { createReadStream } from 'node:fs'
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import {
  applyDiff, BlockParser, createBlockParser, createPresenter, createWebBlockParser, isBlockDiff, isDiagnosticRecord, isMarker,
  openAIChunks, parseAssistantMessage, parseStream, parseWithDiagnostics,
  type Block, type BlockDiff, type BlockParserOptions, type Diagnostic, type DiagnosticRecord, type DiffRecord, type EndMarker,
  type InterruptInfo, type MessageMarker, type ModelTextChunk, type ParseOptions, type ParseResult, type SayMessage, type StreamParseOptions,
  type ToolCallChunk, type ToolEndChunk, type ToolResult, type ToolUseBlock,
} from 'tagstream'

/** True when A and B are the same type (any is equal only to any). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
/** Compiles only when its argument type is `true`. */
function check<T extends true>(): T | undefined { return undefined }
declare const chunks: AsyncIterable<string>

export async function iteration(): Promise<void> {
  // parseStream: the yielded type follows `emit`
  for await (const d of parseStream(chunks)) {
    check<Equal<typeof d, DiffRecord>>()
    // @ts-expect-error a diff record has no `blocks`
    void d.blocks
  }
  for await (const s of parseStream(chunks, { emit: 'snapshots' })) check<Equal<typeof s, Block[]>>()
  for await (const d of parseStream(chunks, { profile: 'robust', emit: 'diffs' })) check<Equal<typeof d, DiffRecord>>()
  const opts: StreamParseOptions = {}
  for await (const r of parseStream(chunks, opts)) check<Equal<typeof r, DiffRecord | Block[]>>()

  // the web stream likewise
  check<Equal<ReturnType<typeof createWebBlockParser<{}>>, TransformStream<string | Uint8Array, DiffRecord>>>()
  const web = createWebBlockParser({ emit: 'snapshots' })
  check<Equal<typeof web, TransformStream<string | Uint8Array, Block[]>>>()

  // guards compose a stream with applyDiff without casts
  let blocks: Block[] = []
  for await (const r of parseStream(chunks, { diagnosticRecords: true })) {
    if (isBlockDiff(r)) {
      check<Equal<typeof r, BlockDiff>>()
      blocks = applyDiff(blocks, r)
    } else if (isMarker(r)) {
      check<Equal<typeof r, MessageMarker | EndMarker>>()
    } else if (isDiagnosticRecord(r)) {
      check<Equal<typeof r, DiagnosticRecord>>()
    }
    // @ts-expect-error a record may be a marker, which applyDiff does not take
    applyDiff(blocks, r)
  }
}

export function oneReturnShape(text: string): void {
  // a variable of type ParseOptions can hold any profile: the declared type must cover them all
  const o: ParseOptions = { profile: 'robust' }
  check<Equal<ReturnType<typeof parseAssistantMessage>, Block[]>>()
  const blocks = parseAssistantMessage(text, o)
  check<Equal<typeof blocks, Block[]>>()
  const r = parseWithDiagnostics(text, o)
  check<Equal<typeof r, ParseResult>>()
  check<Equal<typeof r.diagnostics, Diagnostic[]>>()
  // @ts-expect-error the block array has no diagnostics
  void blocks.diagnostics
}

export async function blockParser(): Promise<void> {
  for await (const d of createBlockParser()) {
    check<Equal<typeof d, DiffRecord>>()
    // @ts-expect-error a diff record has no `content` of its own
    void d.content
  }
  for await (const s of createBlockParser({ emit: 'snapshots' })) check<Equal<typeof s, Block[]>>()
  for await (const d of new BlockParser()) check<Equal<typeof d, DiffRecord>>()
  for await (const s of new BlockParser<Block[]>({ emit: 'snapshots' })) check<Equal<typeof s, Block[]>>()
  // @ts-expect-error a parser typed as emitting diffs cannot be made to emit snapshots
  void new BlockParser({ emit: 'snapshots' })
  const opts: BlockParserOptions = {}
  const either = createBlockParser(opts)
  check<Equal<ReturnType<typeof either.read>, DiffRecord | Block[] | null>>()
  // @ts-expect-error options that may ask for snapshots need the wider type
  void new BlockParser(opts)

  const parser = createBlockParser({ diagnostics: true })
  parser.on('diagnostic', (d) => check<Equal<typeof d, Diagnostic>>())
  parser.on('data', (r) => check<Equal<typeof r, DiffRecord>>())
  parser.on('error', (e) => check<Equal<typeof e, Error>>())
  await new Promise((resolve) => parser.once('close', resolve))
  // @ts-expect-error no such event
  parser.on('diagnostics', () => undefined)
}

export function presenterEvents(): void {
  const p = createPresenter({ executeTool: () => '' })
  p.on('ready', (results) => {
    check<Equal<typeof results, ToolResult[]>>()
    // @ts-expect-error a result has no `output`
    void results[0]?.output
  })
  p.on('text', (m) => check<Equal<typeof m, SayMessage>>())
  p.on('tool', (b) => check<Equal<typeof b, ToolUseBlock>>())
  p.on('result', (r) => check<Equal<typeof r, ToolResult>>())
  p.once('interrupt', (i) => check<Equal<typeof i, InterruptInfo>>())
  p.on('error', (e) => check<Equal<typeof e, Error>>())
  // @ts-expect-error no such event
  p.on('results', () => undefined)
  // @ts-expect-error the listener of ready gets results, not a string
  p.on('ready', (s: string) => s)
}

export async function modelChunks(stream: AsyncIterable<unknown>): Promise<void> {
  // an SDK adapter's chunks: text, reasoning or a native tool call, told apart by `kind`
  for await (const c of openAIChunks(stream)) {
    if (c.kind === 'tool_call') check<Equal<typeof c, ToolCallChunk>>()
    else if (c.kind === 'tool_end') check<Equal<typeof c, ToolEndChunk>>()
    else check<Equal<typeof c, ModelTextChunk>>()
    // @ts-expect-error a chunk may be a native tool call, which has no text
    void c.text
  }
}

export async function pipelines(): Promise<void> {
  // a BlockParser after a source that is not a stream: @types/node's pipeline takes a middle
  // stage only if it is a NodeJS.ReadWriteStream, whose `read` and async iterator are untyped
  const sink = new Writable({ objectMode: true, write: (_d: unknown, _e: unknown, cb: () => void) => cb() })
  async function* model(): AsyncGenerator<string> { yield 'Hi <read_file><path>a</path></read_file>' }
  await pipeline(model(), createBlockParser(), sink)
  await pipeline(['Hi', ' there'], createBlockParser({ profile: 'robust' }), sink)
  await pipeline(model(), createBlockParser(), createPresenter({ executeTool: () => 'ok' }))
  // the stage after it gets the parser, typed by `emit`: as in createBlockParser's example
  await pipeline(createReadStream('reply.txt'), createBlockParser({ profile: 'robust' }), async function* (diffs) {
    check<Equal<typeof diffs, BlockParser<DiffRecord>>>()
    for await (const d of diffs) {
      check<Equal<typeof d, DiffRecord>>()
      yield JSON.stringify(d)
    }
  }, sink)
  await pipeline(model(), createBlockParser({ emit: 'snapshots' }), async (snapshots) => {
    for await (const s of snapshots) check<Equal<typeof s, Block[]>>()
  })
  // what makes it assignable is not callable: a call is typed
  const parser = createBlockParser()
  check<Equal<ReturnType<typeof parser.read>, DiffRecord | null>>()
  check<Equal<ReturnType<typeof parser[typeof Symbol.asyncIterator]> extends AsyncIterableIterator<infer T> ? T : never, DiffRecord>>()
  const r = parser.read(16)
  check<Equal<typeof r, DiffRecord | null>>()
  // @ts-expect-error read takes a size, nothing else
  parser.read('16')
}
