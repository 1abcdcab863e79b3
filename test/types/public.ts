// Type tests of the public API, compiled by `npm run typecheck` (part of `npm test`) against the
// BUILT package (`tagstream` resolves to dist/index.d.ts, as in a user's project). A wrong or
// `any` type fails the compile: each `Equal` must hold, and each `@ts-expect-error` line must be
// an error. Nothing here runs.
import {
  applyDiff, createWebBlockParser, openAIChunks, type ToolCallChunk, type ToolEndChunk, type ModelTextChunk, isBlockDiff, isDiagnosticRecord, isMarker, parseStream,
  type Block, type BlockDiff, type DiagnosticRecord, type DiffRecord, type EndMarker, type MessageMarker, type StreamParseOptions,
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
