import type {
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { webhook as parkedRunCallback } from './actions/inference/run.operation';
import { router } from './actions/router';
import { versionProperties } from './actions/versionDescription';
import { listSearch, loadOptions, resourceMapping } from './methods';
import { manualUrl } from '../shared/manuals';

export class RunComfyDeployment implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'RunComfy Deployment',
		name: 'runComfyDeployment',
		icon: { light: 'file:../../icons/runcomfy.svg', dark: 'file:../../icons/runcomfy.dark.svg' },
		group: ['transform'],
		// 1.1: "On Timeout" left unset returns a timed-out job as still running (1 keeps failing the node).
		version: [1, 1.1],
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description:
			'Run your own ComfyUI workflows deployed as serverless APIs on RunComfy, with overrides picked from the deployed graph, and manage the deployments',
		documentationUrl: manualUrl('deployment'),
		defaults: { name: 'RunComfy Deployment' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'runComfyApi', required: true }],
		// The resume URL of an execution parked by Inference → Run (Wait Mode "Park Until RunComfy Calls Back").
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', responseData: '', path: '', restartWebhook: true }],
		properties: versionProperties,
	};

	methods = { listSearch, loadOptions, resourceMapping };

	// Its one webhook is a restart webhook (like the Wait node's), which n8n leaves out when it registers a
	// workflow's webhooks, so these are never called; n8n's scanner requires them of any node that declares
	// webhooks. Nothing to register: the URL is n8n's own and RunComfy is given it with each run.
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}

	/** RunComfy calling back a parked Inference → Run (never throws: see shared/jobs/park/callback.ts). */
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await parkedRunCallback.call(this);
	}
}
