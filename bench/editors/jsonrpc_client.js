// The client side VS Code's generic LSP extensions are built on (vscode-languageclient runs
// vscode-languageserver-protocol over vscode-jsonrpc's stdio streams), driving
// `recipelint server` as VS Code would: initialize, didOpen, publishDiagnostics, codeAction,
// executeCommand (answering workspace/applyEdit), hover, didChange, shutdown, exit.
//
//   npm install vscode-languageserver-protocol@3.17.5
//   node bench/editors/jsonrpc_client.js RECIPE_FOLDER run.sh [python]
//
// Prints what came back and exits 1 when the server did not answer something.
const { spawn } = require("child_process");
const fs = require("fs");
const path = require("path");
const { pathToFileURL } = require("url");
const lsp = require("vscode-languageserver-protocol/node");

const [folder, file, python = "python3"] = process.argv.slice(2);
const root = path.resolve(folder);
const target = path.join(root, file);
const uri = pathToFileURL(target).href;
const server = spawn(python, ["-m", "recipelint", "server", "--stdio"], { cwd: root, stdio: ["pipe", "pipe", "inherit"] });
const connection = lsp.createProtocolConnection(new lsp.StreamMessageReader(server.stdout), new lsp.StreamMessageWriter(server.stdin));

const published = [];
let waiting = null;
connection.onNotification(lsp.PublishDiagnosticsNotification.type, (params) => {
  published.push(params);
  if (waiting && waiting.test(params)) { waiting.resolve(params); waiting = null; }
});
let applied = null;
connection.onRequest(lsp.ApplyWorkspaceEditRequest.type, (params) => { applied = params.edit; return { applied: true }; });
connection.onRequest(lsp.RegistrationRequest.type, () => null);
connection.listen();

function diagnosticsOf(test) {
  const found = published.find(test);
  if (found) return Promise.resolve(found);
  return new Promise((resolve, reject) => {
    waiting = { test, resolve };
    setTimeout(() => reject(new Error("no publishDiagnostics in 30 s")), 30000);
  });
}

async function main() {
  const init = await connection.sendRequest(lsp.InitializeRequest.type, {
    processId: process.pid, rootUri: pathToFileURL(root).href, workspaceFolders: null,
    capabilities: { workspace: { applyEdit: true, didChangeWatchedFiles: { dynamicRegistration: true } } },
  });
  console.log("server:", JSON.stringify(init.serverInfo), "codeActionProvider:", JSON.stringify(init.capabilities.codeActionProvider),
    "commands:", JSON.stringify(init.capabilities.executeCommandProvider));
  connection.sendNotification(lsp.InitializedNotification.type, {});
  const text = fs.readFileSync(target, "utf8");
  connection.sendNotification(lsp.DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "shellscript", version: 1, text } });
  const first = await diagnosticsOf((p) => p.uri === uri);
  for (const d of first.diagnostics) {
    console.log(`diagnostic ${d.code} ${d.range.start.line + 1}:${d.range.start.character + 1} severity ${d.severity} ${d.codeDescription ? d.codeDescription.href : ""}`);
  }
  const actions = await connection.sendRequest(lsp.CodeActionRequest.type, {
    textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 100000, character: 0 } }, context: { diagnostics: [] },
  });
  for (const a of actions) console.log(`action ${a.kind || "-"} preferred=${!!a.isPreferred} ${a.title}`);
  const answer = await connection.sendRequest(lsp.ExecuteCommandRequest.type, { command: "recipelint.fixAll", arguments: [uri] });
  console.log("fixAll:", JSON.stringify(answer), "applyEdit files:", applied ? Object.keys(applied.changes || {}).length : 0);
  const line = text.split("\n").findIndex((l) => /^num_workers=/.test(l));
  if (line >= 0) {
    const hover = await connection.sendRequest(lsp.HoverRequest.type, { textDocument: { uri }, position: { line, character: 12 } });
    console.log("hover:", hover ? JSON.stringify(hover.contents.value.split("\n").slice(0, 3)) : null);
  }
  const started = Date.now();
  connection.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 2 }, contentChanges: [{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, text: "#" }],
  });
  await diagnosticsOf((p) => p.uri === uri && p.version === 2);
  console.log(`didChange -> publishDiagnostics: ${Date.now() - started} ms`);
  await connection.sendRequest(lsp.ShutdownRequest.type);
  connection.sendNotification(lsp.ExitNotification.type);
  server.on("exit", (code) => { console.log("server exit code", code); process.exit(code === 0 ? 0 : 1); });
}

main().catch((error) => { console.error(error); server.kill(); process.exit(1); });
