'use strict';
/** Names and places shared by the real-n8n harness (scripts/e2e/n8n.js re-exports them). */
const os = require('os');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const PACKAGE_NAME = 'n8n-nodes-runcomfy';
const N8N_VERSION = process.env.N8N_VERSION || '2.41.1';
/** The latest n8n 1.x, the second n8n the e2e suite runs on (test/e2e/versions.test.ts). */
const N8N_1X_VERSION = '1.123.81';
const CACHE_DIR = process.env.RUNCOMFY_CACHE_DIR || path.join(os.homedir(), '.cache', 'n8n-nodes-runcomfy');
const CREDENTIAL_NAME = 'RunComfy account';
const CREDENTIAL_TYPE = 'runComfyApi';
/** Node type names inside n8n (community package name + node `name`). */
const NODE_TYPES = {
	model: `${PACKAGE_NAME}.runComfyModel`,
	deployment: `${PACKAGE_NAME}.runComfyDeployment`,
	dataset: `${PACKAGE_NAME}.runComfyDataset`,
	training: `${PACKAGE_NAME}.runComfyTraining`,
	trigger: `${PACKAGE_NAME}.runComfyTrigger`,
	webhookTrigger: `${PACKAGE_NAME}.runComfyWebhookTrigger`,
};
/** Login of the owner account the harness creates on a fresh `n8n start`. */
const DEFAULT_OWNER = {
	email: 'owner@example.com',
	firstName: 'Demo',
	lastName: 'Owner',
	password: 'RunComfy-Demo-2024',
};

module.exports = {
	ROOT,
	PACKAGE_NAME,
	N8N_VERSION,
	N8N_1X_VERSION,
	CACHE_DIR,
	CREDENTIAL_NAME,
	CREDENTIAL_TYPE,
	NODE_TYPES,
	DEFAULT_OWNER,
};
