// The JavaScript side of acap's differential suite: @a2a-js/sdk signs and verifies
// Agent Cards, one request per line on standard input, one answer per line on standard
// output, in order, for as long as the input stays open (one node process per run).
//
//   {"op": "sign", "text": CARD TEXT, "key": PRIVATE JWK, "header": PROTECTED HEADER}
//     -> {"signature": {"protected", "signature"}}  or  {"error": "..."}
//   {"op": "verify", "text": CARD TEXT, "keys": [PUBLIC JWK, ...]}
//     -> {"valid": true}  or  {"valid": false, "error": "..."}
//
// The card is read from its text with JSON.parse, as a client reads an HTTP body, so
// that JavaScript's own reading (the last of two equal names, doubles) is what is judged.
import { createInterface } from 'node:readline';
import { generateAgentCardSignature, verifyAgentCardSignature } from '@a2a-js/sdk';

// The SDK's verifier reports each failed entry with console.debug, which writes to
// standard output: keep the reasons for the answer, and the output for answers only.
let reasons = [];
console.debug = (...args) => { reasons.push(args.map((a) => (a && a.message) || String(a)).join(' ')); };

async function answer(request) {
  const card = JSON.parse(request.text);
  if (request.op === 'sign') {
    const signed = await generateAgentCardSignature(request.key, request.header)(card);
    return { signature: signed.signatures[signed.signatures.length - 1] };
  }
  if (request.op === 'verify') {
    reasons = [];
    const byKid = async (kid) => {
      const key = request.keys.find((k) => k.kid === kid);
      if (!key) throw new Error(`no key with kid ${kid}`);
      return key;
    };
    try {
      await verifyAgentCardSignature(byKid)(card);
      return { valid: true };
    } catch (e) {
      return { valid: false, error: `${e.message} ${reasons.join('; ')}`.trim() };
    }
  }
  return { error: `unknown op ${request.op}` };
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  let out;
  try {
    out = await answer(JSON.parse(line));
  } catch (e) {
    out = { error: String((e && e.message) || e), valid: false };
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}
