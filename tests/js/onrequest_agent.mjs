// An On Request agent written on @a2a-js/sdk, for acap's tests (tests/unit/agent/test_js_agent.py):
// the Example Memorial Chapel of examples/agent/, answered in JavaScript. It serves the card
// and JWKS acap built (their exact bytes) and A2A 1.0 JSON-RPC, streaming included, through
// the SDK's DefaultRequestHandler and JsonRpcTransportHandler on node:http, and keeps the
// card's promises by itself (no acap code): every on-request skill is referred to the person
// who asks (a caller acting for nobody), in the same words with and without activation, with
// the §6.1 object and the A2A-Extensions echo when activated.
//
//   node onrequest_agent.mjs CARD_FILE JWKS_FILE PORT [BREAK]
//
// BREAK breaks one rule, for the probe to find: OR-5.3 (the price beside the referral),
// OR-5.7 (the booking done for anyone), OR-6.1 (no §6.1 object when activated), A2A-EXT-ECHO
// (no echo header). It prints "listening PORT" once it listens on 127.0.0.1.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  defaultServerCallContextBuilder,
} from '@a2a-js/sdk/server';
import { Extensions, Role, TaskState } from '@a2a-js/sdk';

const [cardFile, jwksFile, port, breaks] = process.argv.slice(2);
const cardBytes = readFileSync(cardFile);
const jwksBytes = readFileSync(jwksFile);
const card = JSON.parse(cardBytes.toString('utf8'));
const EXT = 'https://agent-capability.org/ext/on-request/v1';
const operator = card.provider.organization;
const entries = Object.fromEntries(
  card.capabilities.extensions.find((e) => e.uri === EXT).params.skills.map((s) => [s.id, s]));

// The skill a question is for (A2A requests carry no skill id): a word of each.
const WORDS = [['cost', 'service-pricing'], ['book', 'arrangement-booking'],
  ['notice', 'memorial-notice'], ['open', 'opening-hours'], ['staff', 'speak-to-staff']];
const skillOf = (text) => (WORDS.find(([w]) => text.toLowerCase().includes(w)) || [])[1];

const textPart = (value) => ({ content: { $case: 'text', value }, metadata: undefined,
  filename: '', mediaType: '' });
const message = (text, ctx, marker) => ({
  messageId: randomUUID(), contextId: ctx.contextId, taskId: '', role: Role.ROLE_AGENT,
  parts: [textPart(text)], referenceTaskIds: [],
  extensions: marker ? [EXT] : [], metadata: marker ? { [EXT]: marker } : undefined,
});

class OnRequestExecutor {
  async execute(ctx, bus) {
    const call = ctx.context;
    const activated = (call.requestedExtensions || []).includes(EXT);
    if (activated && breaks !== 'A2A-EXT-ECHO') call.addActivatedExtension(EXT);
    const marked = activated && breaks !== 'OR-6.1';
    const text = ctx.userMessage.parts.map((p) => p.content?.value || '').join(' ');
    const sid = skillOf(text);
    const entry = entries[sid];
    if (!entry) {  // public: opening hours, and how to reach a funeral director
      const answer = sid === 'speak-to-staff'
        ? 'A funeral director will call you back, Monday to Friday 09:00 to 17:00.'
        : `${operator} is open Monday to Friday, 09:00 to 17:00.`;
      bus.publish(AgentEvent.message(message(answer, ctx)));
      bus.finished();
      return;
    }
    const where = `You can ask here: ${entry.personEntry}`;
    if (entry.completion === undefined) {  // information: referred (OR-5.3, OR-5.4)
      let words = `${operator} gives its prices to the person who asks. ${where}`;
      if (breaks === 'OR-5.3') words = `A direct cremation costs £1,395. ${words}`;
      const marker = { status: 'on-request', skillId: entry.id, personEntry: entry.personEntry };
      bus.publish(AgentEvent.message(message(words, ctx, marked ? marker : undefined)));
      bus.finished();
      return;
    }
    // an action: not carried out for a caller acting for nobody (OR-5.7), REJECTED
    const done = breaks === 'OR-5.7' && entry.id === 'arrangement-booking';
    const words = done ? 'Your arrangement meeting is booked for Tuesday.'
      : `I can't do this for you. The person can ask for it here: ${entry.personEntry}`;
    const marker = { status: 'action-referred', skillId: entry.id,
      personEntry: entry.personEntry };
    const status = { state: done ? TaskState.TASK_STATE_COMPLETED : TaskState.TASK_STATE_REJECTED,
      message: message(words, ctx, marked && !done ? marker : undefined), timestamp: undefined };
    bus.publish(AgentEvent.task({ id: ctx.taskId, contextId: ctx.contextId, status,
      artifacts: [], history: [], metadata: undefined }));
    bus.finished();
  }

  async cancelTask() {}
}

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new OnRequestExecutor());
const rpc = new JsonRpcTransportHandler(handler);
// each anonymous request an owner of its own, as acap.agent does: no caller reads another's tasks
const anonymous = () => ({ isAuthenticated: false, userName: `anonymous:${randomUUID()}` });

async function answerRpc(req, res, body) {
  const context = defaultServerCallContextBuilder({
    extensions: Extensions.parseServiceParameter(req.headers['a2a-extensions']),
    user: anonymous(), headers: req.headers, requestedVersion: req.headers['a2a-version'],
  });
  const headers = () => (context.activatedExtensions?.length
    ? { 'A2A-Extensions': context.activatedExtensions.join(',') } : {});
  let result;
  try {
    result = await rpc.handle(body, context);
  } catch (error) {
    result = { jsonrpc: '2.0', id: null, error: JsonRpcTransportHandler.mapToJSONRPCError(error) };
  }
  if (typeof result?.[Symbol.asyncIterator] !== 'function') {
    res.writeHead(200, { 'Content-Type': 'application/json', ...headers() });
    res.end(JSON.stringify(result));
    return;
  }
  const it = result[Symbol.asyncIterator]();
  const first = await it.next();  // the executor has activated the extension by now
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache',
    ...headers() });
  for (let step = first; !step.done; step = await it.next()) {
    res.write(`data: ${JSON.stringify(step.value)}\n\n`);
  }
  res.end();
}

const server = http.createServer((req, res) => {
  const files = { '/.well-known/agent-card.json': cardBytes, '/.well-known/jwks.json': jwksBytes };
  if (req.method === 'GET' && files[req.url]) {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(files[req.url]);
    return;
  }
  if (req.method !== 'POST' || req.url !== '/a2a/v1') {
    res.writeHead(404);
    res.end();
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    answerRpc(req, res, Buffer.concat(chunks).toString('utf8')).catch((error) => {
      console.error(error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
});
server.listen(Number(port), '127.0.0.1', () => console.log(`listening ${server.address().port}`));
