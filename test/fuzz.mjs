#!/usr/bin/env node
// A long run of the streaming law (any chunking = the parse of every prefix), and of the hostile-diff
// laws (nothing but ERR_INVALID_DIFF, no prototype written: test/helpers/hostile.mjs), for maintainers:
// `npm run fuzz [-- RUNS]`. The suite runs the same law with fewer cases; this one found the
// chunking bugs that the suite's seeds had not. Uses the build (dist/) and the DiffSession
// directly, so a synchronous loop of thousands of parsers does not pile up stream callbacks.
import fc from 'fast-check'
import { parseAssistantMessage, applyDiff } from '../dist/index.js'
import { DiffSession } from '../dist/streams/session.js'
import { soup, cutsUpTo, chunksOf } from './helpers/soup.mjs'
import jsonpatch from 'fast-json-patch'
import * as lib from '../dist/index.js'
import { hostileRun, taintedRun, taintedRecords, checkSync, checkPresenter } from './helpers/hostile.mjs'

const runs = Number(process.argv[2] ?? 5000)
const counter = () => { let n = 0; return () => 'c' + (++n) }
const json = JSON.stringify
const profiles = [
  {}, { profile: 'robust', diagnostics: false }, { codeFences: true },
  { lenientTags: true, hidePartialTags: true }, { greedyWhileStreaming: true, decodeEntities: true },
]

for (const opts of profiles) {
  fc.assert(fc.property(soup.chain((s) => cutsUpTo(s.length).map((cuts) => [s, cuts])), ([s, cuts]) => {
    const chunks = chunksOf(s, cuts)
    let blocks = []
    const session = new DiffSession({ ...opts, idGenerator: counter() }, { record: (d) => { blocks = applyDiff(blocks, d) }, diagnostic: () => {} })
    let prefix = ''
    for (const c of chunks) {
      session.push(c)
      prefix += c
      const want = parseAssistantMessage(prefix, { ...opts, idGenerator: counter() })
      if (json(want) !== json(blocks)) throw new Error(`${json(opts)} ${json(chunks)}\n got ${json(blocks)}\nwant ${json(want)}`)
    }
  }), { numRuns: runs })
  console.log(`ok ${json(opts)}: ${runs} chunked soups`)
}

// hostile diffs: applyDiff, toJsonPatch and BlockAccumulator agree, refuse with ERR_INVALID_DIFF only
fc.assert(fc.property(hostileRun, (run) => { checkSync(lib, jsonpatch, run) }), { numRuns: runs * 4 })
console.log(`ok hostile diffs: ${runs * 4} runs through applyDiff, toJsonPatch, BlockAccumulator`)
await fc.assert(fc.asyncProperty(fc.oneof(hostileRun.map((r) => [r, true]), taintedRun.map((r) => [taintedRecords(lib, r), false])),
  async ([records, start]) => { await checkPresenter(lib, records, start) }), { numRuns: runs })
console.log(`ok hostile diffs: ${runs} streams through the Presenter`)
