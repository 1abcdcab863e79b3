// Types of hostile.mjs.
import type fc from 'fast-check'

/** A well-formed block. */
export const validBlock: fc.Arbitrary<unknown>
/** One record: mostly plausible diffs, with hostile fields and values mixed in. */
export const hostileRecord: fc.Arbitrary<unknown>
/** A run of 1–12 hostile records. */
export const hostileRun: fc.Arbitrary<unknown[]>
/** One block of each type, where every run starts. */
export function startBlocks(): unknown[]
/** The own keys and prototypes of the built-ins, and a few reads a pollution would change. */
export function builtinsFingerprint(): string
/** Throws unless `err` is the TagstreamError ERR_INVALID_DIFF. */
export function expectInvalidDiff(err: unknown, where: string, record: unknown): void
/** Throws unless `blocks` are well-formed, with ordinary prototypes and string params. */
export function expectWellFormed(blocks: unknown, where: string): void
/** The synchronous laws over one run; returns how many records applied. */
export function checkSync(lib: unknown, jsonpatch: unknown, records: unknown[]): number
/** A message's valid diff stream, chunked, with one hostile record slipped in somewhere. */
export const taintedRun: fc.Arbitrary<{ text: string, cuts: number[], at: number, bad: unknown }>
/** The records of a taintedRun. */
export function taintedRecords(lib: unknown, run: { text: string, cuts: number[], at: number, bad: unknown }): unknown[]
/** The Presenter's law over one run (after the start blocks unless `start` is false); resolves to its error (or null) and the tools executed. */
export function checkPresenter(lib: unknown, records: unknown[], start?: boolean): Promise<{ failure: unknown, executed: string[] }>
