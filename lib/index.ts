/**
 * tagstream: Node.js streams for agents whose model writes tool calls as XML-like tags.
 *
 * Rings, from the inside out: the pure parser and diff helpers; the streams that wrap them
 * (BlockParser, Presenter); log readers and replay; the CLI under `examples/`.
 * @module API
 */
export type {
  Block, TextBlock, ToolUseBlock, ReasoningBlock, Diagnostic, DiagnosticCode, BlockPath,
  BlockDiff, AddDiff, AppendDiff, SetDiff, CompleteDiff, TruncateDiff, ReplaceDiff,
  MessageMarker, EndMarker, DiagnosticRecord, DiffRecord,
} from './types.js'
export { TagstreamError, type TagstreamErrorCode } from './errors.js'
export { clineDialect, defineDialect, type Dialect, type DialectSpec } from './dialect.js'
export { type ParseOptions } from './parse/options.js'
export { parseAssistantMessage, parseWithDiagnostics, type ParseResult } from './parse/parse.js'
export { diffBlocks, applyDiff } from './diff/diff.js'
export { BlockAccumulator } from './diff/accumulator.js'
export { toJsonPatch, type JsonPatchOperation } from './diff/jsonpatch.js'
export { type StreamParseOptions } from './streams/session.js'
export { BlockParser, createBlockParser, type BlockParserOptions, type BlockParserEvents, type EmitOption, type ParserListener } from './streams/block-parser.js'
export { parseStream, createWebBlockParser } from './streams/iterable.js'
export { type Emitted } from './streams/records.js'
export { isBlockDiff, isMarker, isDiagnosticRecord } from './diff/guards.js'
export { cleanDisplayText } from './present/clean.js'
export {
  SYNTHETIC_INTERVAL_MS, type ReplayEvent, type ReplayMessageEvent, type ReplayChunkEvent, type ReplayEndEvent,
  type ReplayToolEvent, type ReplayToolEndEvent, type LogReadOptions, type LogSource,
} from './replay/events.js'
export { readChunkLog } from './replay/chunk-log.js'
export { readClineHistory } from './replay/cline-history.js'
export { openAIChunks, openAIText, readOpenAISse, type ModelChunk, type ModelTextChunk } from './replay/openai.js'
export { type ToolCallChunk, type ToolEndChunk, type NativeChunk } from './replay/native-sources.js'
export { modelTurnEvents } from './replay/model-turn.js'
export { anthropicChunks, anthropicText, readAnthropicSse } from './replay/anthropic.js'
export { readLog, readLogBatches, detectLogFormat, sniffLog, LOG_FORMATS, type LogFormat, type SniffedLog, type ReadLogOptions } from './replay/detect.js'
export { replayDiffs, ReplayDiffer, counterIds, type ReplayDiffOptions } from './replay/diffs.js'
export { pace, replayTurns, diffTurns, type PaceOptions, type ReplayTurn, type DiffTurn } from './replay/pace.js'
export { createReplayStream, type ReplayStreamOptions } from './replay/stream.js'
export {
  Presenter, createPresenter, InterruptError, INTERRUPT_NOTES,
  type PresenterOptions, type PresenterEvents, type PresenterListener, type SayMessage, type ToolOutcome, type ToolContext, type ToolResult, type ToolStatus, type InterruptInfo,
} from './streams/presenter.js'
