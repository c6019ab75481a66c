// A mock of the Gemini API (`streamGenerateContent` over SSE, and the
// plain `generateContent` and `countTokens`), for driving the real Gemini
// CLI in stopgate's end-to-end tests. It listens on 127.0.0.1 only.
//
//   node mock-gemini.mjs SCENARIO.json LOG.jsonl
//
// It prints `listening PORT` on stdout once it accepts connections, and
// appends one JSON line per request to LOG.jsonl: the path, whether it
// was a request of the agent loop (a stream that offers tools), and the
// text of its last user turn.
//
// A scenario is `{"replies": [REPLY, ...]}`. Each agent-loop request
// takes the next REPLY, in order; a REPLY is an array of parts:
// `{"text":...}` or `{"functionCall":{"name":...,"args":{...}}}`. When the
// replies run out, the agent gets `Done.`. Other requests (the client's
// own checks, such as which speaker is next) get a short JSON answer that
// hands the turn back to the user.
import { createServer } from 'node:http';
import { readFileSync, appendFileSync } from 'node:fs';

const [scenarioPath, logPath] = process.argv.slice(2);
const scenario = JSON.parse(readFileSync(scenarioPath, 'utf8'));
let cursor = 0;

function lastUserText(body) {
  const turns = Array.isArray(body.contents) ? body.contents : [];
  for (let i = turns.length - 1; i >= 0; i--) {
    const t = turns[i];
    if (t.role !== 'user') continue;
    return (t.parts || []).map((p) => p.text || (p.functionResponse ? '[functionResponse]' : '')).join('\n');
  }
  return '';
}

function chunk(parts) {
  return { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
           usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 10, totalTokenCount: 20 } };
}

const server = createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => { raw += c; });
  req.on('end', () => {
    let body = {};
    try { body = JSON.parse(raw || '{}'); } catch { body = {}; }
    const stream = req.url.includes(':streamGenerateContent');
    const tools = Array.isArray(body.tools) && body.tools.length > 0;
    const agent = stream && tools;
    appendFileSync(logPath, JSON.stringify({ path: req.url, method: req.method,
      agent_loop: agent, last_user: lastUserText(body) }) + '\n');
    if (req.url.includes(':countTokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ totalTokens: 10 }));
      return;
    }
    const parts = agent
      ? (cursor < scenario.replies.length ? scenario.replies[cursor++] : [{ text: 'Done.' }])
      : [{ text: JSON.stringify({ next_speaker: 'user', reasoning: 'mock' }) }];
    if (stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(`data: ${JSON.stringify(chunk(parts))}\n\n`);
      res.end();
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(chunk(parts)));
    }
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
