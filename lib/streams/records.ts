/**
 * What a parser stream yields, as a type computed from its options, so that iteration is typed by
 * the `emit` option actually given.
 * @module
 */
import type { Block, DiffRecord } from '../types.js'

/**
 * The records a stream parser emits for options of type `O`: {@link DiffRecord}s by default or
 * with `emit: 'diffs'`, block arrays with `emit: 'snapshots'`, and either when the options' type
 * does not say which (a variable typed `StreamParseOptions`).
 * @example
 * ```ts
 * type A = Emitted<{}>                   // DiffRecord
 * type B = Emitted<{ emit: 'snapshots' }> // Block[]
 * type C = Emitted<StreamParseOptions>   // DiffRecord | Block[]
 * ```
 * @group Streams
 */
export type Emitted<O> = O extends Record<'emit', 'snapshots'>
  ? Block[]
  : 'emit' extends keyof O
    ? O['emit'] extends 'diffs' | undefined ? DiffRecord : DiffRecord | Block[]
    : DiffRecord
