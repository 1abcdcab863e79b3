#!/usr/bin/env node
// Runs the tap suite, passing its TAP output through, and ends with the line CI reads:
// "N passed, N failed". The exit code is tap's (failures and coverage thresholds included).
// Above that line it repeats every failed assertion with the subtests it sits in, because a CI
// log is often read from its tail and a failure deep in 80,000 lines is otherwise lost.
import { spawn } from 'node:child_process'
import { StringDecoder } from 'node:string_decoder'

const args = ['tap', '--reporter=tap', ...process.argv.slice(2)]
const child = spawn('npx', args, { stdio: ['ignore', 'pipe', 'inherit'] })
let tail = ''
let partial = ''
/** The open subtests' names, by depth (TAP indents a level by four spaces). */
const path = []
/** Whether a failure was reported among the children at each depth, since their subtest began. */
const failedAt = []
const failures = []
function scan(line) {
  const sub = /^( *)# Subtest: (.*)$/u.exec(line)
  if (sub) {
    const depth = sub[1].length >> 2
    path.length = depth
    path[depth] = sub[2]
    failedAt.length = depth + 1
    failedAt[depth + 1] = false
    return
  }
  const bad = /^( *)not ok \d+ - (.*?)(?: # time=.*)?$/u.exec(line)
  if (bad) {
    const depth = bad[1].length >> 2
    // a failed subtest repeats its failed children's verdict: report only the leaves
    if (failedAt[depth + 1] !== true) failures.push([...path.slice(0, depth), bad[2]].join(' > '))
    for (let d = 0; d <= depth; d++) failedAt[d] = true
  }
}
// a chunk of output may end inside a UTF-8 character (test names hold non-ASCII text): the
// bytes are passed through as they came, and decoded across chunks for the scan
const decoder = new StringDecoder('utf8')
child.stdout.on('data', (buf) => {
  process.stdout.write(buf)
  const text = decoder.write(buf)
  tail = (tail + text).slice(-4096)
  const lines = (partial + text).split('\n')
  partial = lines.pop() ?? ''
  for (const line of lines) scan(line)
})
child.on('close', (code, signal) => {
  partial += decoder.end()
  if (partial) scan(partial)
  // tap's own summary: "# { total: 12, pass: 11, fail: 1, skip: 0 }"
  const m = /# \{ total: (\d+)(?:, pass: (\d+))?(?:, fail: (\d+))?/u.exec(tail)
  const pass = m ? Number(m[2] ?? 0) : 0
  let fail = m ? Number(m[3] ?? 0) : 0
  if (!m || (code !== 0 && fail === 0)) fail += 1 // tap failed for another reason (coverage, crash)
  if (code !== 0 && m && Number(m[3] ?? 0) === 0) console.log(`# tap exited ${code ?? signal} with no failed test: see the coverage table above`)
  // a counterexample can be long: the line names the test, the output above holds it whole
  for (const f of failures) console.log(`# failed: ${f.length > 1000 ? `${f.slice(0, 1000)}…` : f}`)
  console.log(`${pass} passed, ${fail} failed`)
  process.exit(code ?? 1)
})
