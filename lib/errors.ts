/**
 * Stable error codes:
 * - `ERR_MESSAGE_TOO_LARGE`: a BlockParser received more than `maxBytes`;
 * - `ERR_INVALID_CHUNK`: a chunk that is not a string, Buffer or Uint8Array;
 * - `ERR_INVALID_DIALECT`: a dialect with a bad name (repeated names are merged, not an error);
 * - `ERR_INVALID_OPTION`: an option with a bad value;
 * - `ERR_INVALID_DIFF`: a diff (or snapshot record) that is malformed or does not apply to the block
 *   array: unknown op or path, an index that is not an integer in range, non-string text or value,
 *   a malformed block, a param named `__proto__` (from `applyDiff`, `toJsonPatch`,
 *   `BlockAccumulator` and the Presenter alike);
 * - `ERR_BAD_LOG`: a malformed line or event in a log being replayed;
 * - `ERR_USAGE`: bad command-line usage.
 * @group Errors
 */
export type TagstreamErrorCode =
  | 'ERR_MESSAGE_TOO_LARGE'
  | 'ERR_INVALID_CHUNK'
  | 'ERR_INVALID_DIALECT'
  | 'ERR_INVALID_OPTION'
  | 'ERR_INVALID_DIFF'
  | 'ERR_BAD_LOG'
  | 'ERR_USAGE'

/**
 * The one error class tagstream throws or passes to `destroy()`. Match on `code`, which is
 * stable; `message` is for people.
 * @example
 * ```ts
 * parser.on('error', (err) => {
 *   if (err instanceof TagstreamError && err.code === 'ERR_MESSAGE_TOO_LARGE') console.log(parser.blocks)
 * })
 * ```
 * @group Errors
 */
export class TagstreamError extends Error {
  /** Stable machine-readable code. */
  readonly code: TagstreamErrorCode
  /** Extra facts about the failure (file, line, offset, …), when known. */
  readonly details: Record<string, unknown>

  /**
   * @param code - stable code
   * @param message - explanation for people
   * @param details - extra facts, also copied to the error for logging
   */
  constructor(code: TagstreamErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message)
    this.name = 'TagstreamError'
    this.code = code
    this.details = details
  }
}
