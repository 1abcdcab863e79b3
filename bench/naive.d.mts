// Types for the naive reference parser, so the tests can use it as an oracle.
import type { Dialect } from '../lib/index.js'

/** The original's character-by-character parse, blocks without ids. */
export function naiveParse(text: string, dialect?: Dialect): unknown[]
/** Blocks without `call_id` / `isNativeToolCall`. */
export function stripIds(blocks: readonly unknown[]): unknown[]
