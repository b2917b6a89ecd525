'use strict';
/**
 * Harness for running this package inside a REAL n8n (the pinned version provisioned by
 * scripts/provision-n8n.sh), exactly as a user's self-hosted n8n loads a community package.
 *
 * Used by the e2e tests (test/e2e), the demo (scripts/demo.js) and the benchmark. Plain CommonJS.
 *
 *   const h = require('./scripts/e2e/n8n');
 *   const home = await h.ensureN8n();            // cached install of n8n@2.41.1, runs on Node 24
 *   await h.ensureBuilt();                       // `npm run build` when dist/ is older than the sources
 *   const uf = h.createUserFolder();             // private N8N_USER_FOLDER with the package installed
 *   await h.importCredential(uf, h.sandboxCredential(sandbox));
 *   await h.importWorkflow(uf, 'examples/text-to-image-batch.json');
 *   const run = await h.execute(uf, workflowId); // `n8n execute --id --rawOutput`, parsed
 *   const n8n = await h.startN8n(uf);            // `n8n start` on 127.0.0.1, ready
 *   await n8n.stop();
 *
 * Every n8n process runs on Node 24 (the binary resolved by scripts/node24.sh), in its own process
 * group, and is killed when this process exits.
 *
 * The parts live in scripts/e2e/lib/: constants, processes (spawning, supervision), provision (Node 24,
 * n8n, build), user-folder (installed package, n8n's environment), cli (n8n commands, `n8n start`),
 * rest-client (n8n's internal REST API). This file is the public API (types: n8n.d.ts).
 */
const constants = require('./lib/constants');
const processes = require('./lib/processes');
const provision = require('./lib/provision');
const userFolder = require('./lib/user-folder');
const cli = require('./lib/cli');

module.exports = {
	supervise: processes.supervise,
	killGroup: processes.killGroup,
	...constants,
	node24: provision.node24,
	ensureN8n: provision.ensureN8n,
	ensureBuilt: provision.ensureBuilt,
	packageManifest: userFolder.packageManifest,
	createUserFolder: userFolder.createUserFolder,
	binaryFilePath: userFolder.binaryFilePath,
	n8nEnv: userFolder.n8nEnv,
	n8nCli: cli.n8nCli,
	freePort: processes.freePort,
	portIsFree: processes.portIsFree,
	newId: cli.newId,
	sandboxCredential: cli.sandboxCredential,
	liveCredential: cli.liveCredential,
	importCredential: cli.importCredential,
	prepareWorkflow: cli.prepareWorkflow,
	importWorkflow: cli.importWorkflow,
	execute: cli.execute,
	nodeItems: cli.nodeItems,
	nodeError: cli.nodeError,
	startN8n: cli.startN8n,
	startN8nWithPublished: cli.startN8nWithPublished,
	run: processes.run,
	killAll: processes.killAll,
};
