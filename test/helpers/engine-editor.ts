/**
 * What the editor calls outside a workflow run: listSearch / loadOptions / resourceMapping methods, and the
 * credential's Test button. (A polling trigger's poll() is in ./engine-trigger.ts.)
 */
import { LoadOptionsContext, RoutingNode, ExecuteContext } from 'n8n-core';
import type { IExecuteData, INode, INodeListSearchResult, INodePropertyOptions, INodeType, ResourceMapperFields } from 'n8n-workflow';
import { NodeConnectionTypes, NodeHelpers, Workflow, createRunExecutionData } from 'n8n-workflow';

import { HarnessNodeTypes, createAdditionalData, defaultTypeVersion, getRuntime, qualifiedTypeName } from './engine-runtime';
import type { EditorMethodOptions, RunComfyCredentialData } from './engine-types';
import { CREDENTIAL_TYPE, NODE_CREDENTIALS, credentialType, credentialsHelperFor, defaultNodeName } from './engine-workflow';
import { testNode } from './testNode';

// ---------------------------------------------------------------------------------------------
// Editor methods: listSearch / loadOptions / resourceMapping

async function withLoadOptionsContext<T>(
	opts: EditorMethodOptions,
	fn: (ctx: LoadOptionsContext, nodeType: INodeType) => Promise<T>,
): Promise<T> {
	await getRuntime();
	const typeName = qualifiedTypeName(opts.node);
	const typeVersion = opts.typeVersion ?? defaultTypeVersion(opts.node);
	const nodeType = NodeHelpers.getVersionedNodeType(opts.node, typeVersion);
	const nodeTypes = new HarnessNodeTypes({ [typeName]: opts.node });
	// The editor sends the node's full parameters (defaults included); do the same.
	const parameters =
		NodeHelpers.getNodeParameters(
			nodeType.description.properties,
			structuredClone(opts.parameters),
			true,
			false,
			{ typeVersion },
			nodeType.description,
		) ?? {};
	const node: INode = {
		id: 'node-in-editor',
		name: defaultNodeName(opts.node),
		type: typeName,
		typeVersion,
		position: [0, 0],
		parameters,
		credentials: structuredClone(NODE_CREDENTIALS),
	};
	const workflow = new Workflow({
		id: 'harness-editor-workflow',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes,
	});
	const additionalData = createAdditionalData({
		credentialsHelper: credentialsHelperFor(opts.credentials),
		currentNodeParameters: parameters,
		workflowId: workflow.id,
	});
	const ctx = new LoadOptionsContext(workflow, node, additionalData, opts.path ?? 'parameters');
	return await workflow.expression.withIsolate(async () => await fn(ctx, nodeType));
}

function getMethod<K extends 'listSearch' | 'loadOptions' | 'resourceMapping'>(
	nodeType: INodeType,
	kind: K,
	method: string,
): NonNullable<NonNullable<INodeType['methods']>[K]>[string] {
	const fn = nodeType.methods?.[kind]?.[method];
	if (typeof fn !== 'function') {
		const known = Object.keys(nodeType.methods?.[kind] ?? {}).join(', ') || 'none';
		throw new Error(`Node "${nodeType.description.name}" has no ${kind} method "${method}" (has: ${known})`);
	}
	return fn as NonNullable<NonNullable<INodeType['methods']>[K]>[string];
}

export async function listSearch(
	opts: EditorMethodOptions & { filter?: string; paginationToken?: string },
): Promise<INodeListSearchResult> {
	return await withLoadOptionsContext(opts, async (ctx, nodeType) => {
		const fn = getMethod(nodeType, 'listSearch', opts.method);
		return await fn.call(ctx, opts.filter, opts.paginationToken);
	});
}

export async function loadOptions(opts: EditorMethodOptions): Promise<INodePropertyOptions[]> {
	return await withLoadOptionsContext(opts, async (ctx, nodeType) => {
		const fn = getMethod(nodeType, 'loadOptions', opts.method);
		return await fn.call(ctx);
	});
}

export async function resourceMapping(opts: EditorMethodOptions): Promise<ResourceMapperFields> {
	return await withLoadOptionsContext(opts, async (ctx, nodeType) => {
		const fn = getMethod(nodeType, 'resourceMapping', opts.method);
		return await fn.call(ctx);
	});
}

// ---------------------------------------------------------------------------------------------
// Credential test button

/**
 * Runs the credential's `test` request the way n8n's CredentialsTester does: a temporary node whose
 * only property routes `test.request`, executed by n8n-core's RoutingNode with the credential's
 * `authenticate` applied through the helper. Returns n8n's result shape.
 */
export async function testCredential(credentials: RunComfyCredentialData): Promise<{ status: 'OK' | 'Error'; message: string }> {
	await getRuntime();
	const test = credentialType.test;
	if (!test) return { status: 'Error', message: 'No testing function found for this credential.' };
	const helper = credentialsHelperFor(credentials);
	const decrypted = helper.withDefaults(CREDENTIAL_TYPE, { ...credentials });
	const nodeType: INodeType = {
		description: {
			displayName: 'No Operation, do nothing',
			name: 'n8n-nodes-base.noOp',
			group: ['organization'],
			version: 1,
			description: 'No Operation',
			defaults: { name: 'No Operation, do nothing' },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: CREDENTIAL_TYPE, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: test.request },
					default: '',
				},
			],
		},
	};
	// The temporary node n8n's CredentialsTester builds.
	const node = testNode({ id: 'temp', name: 'Temp-Node', type: 'n8n-nodes-base.noOp', credentials: structuredClone(NODE_CREDENTIALS) });
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: new HarnessNodeTypes({ 'n8n-nodes-base.noOp': nodeType }),
	});
	const additionalData = createAdditionalData({ credentialsHelper: helper });
	const executeData: IExecuteData = { node, data: {}, source: null };
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		createRunExecutionData({}),
		0,
		[],
		{ main: [[{ json: {} }]] },
		executeData,
		[],
	);
	const routingNode = new RoutingNode(context, nodeType, {
		id: 'cred-runcomfy-1',
		name: 'RunComfy account',
		type: CREDENTIAL_TYPE,
		data: decrypted,
	});
	try {
		await workflow.expression.withIsolate(async () => await routingNode.runNode());
	} catch (error) {
		const cause = (error as { cause?: { response?: { status: number; statusText?: string }; code?: string } }).cause;
		if (cause?.response) {
			const { status, statusText } = cause.response;
			if (status < 199 || status > 299) {
				return { status: 'Error', message: statusText || `Received HTTP status code: ${status}` };
			}
		} else if (cause?.code) {
			return { status: 'Error', message: cause.code };
		}
		return { status: 'Error', message: String((error as Error).message) };
	}
	return { status: 'OK', message: 'Connection successful!' };
}
