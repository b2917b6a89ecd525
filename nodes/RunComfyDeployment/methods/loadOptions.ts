import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { getDeployment } from '../../shared/transport';
import { currentDeploymentId } from '../helpers/deployments';
import { graphOf, inputsOf, nodeLabel, sortedNodeIds } from '../helpers/graph';

/**
 * The nodes of the deployment's saved workflow, for "Binary Inputs": "Load Image #10" → "10". Nodes that
 * look like file loaders (an `image`, `video`, `audio` or `file` input) come first.
 */
export async function getWorkflowNodes(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const deploymentId = currentDeploymentId(this);
	if (!deploymentId) return [];
	const graph = graphOf(await getDeployment(this, deploymentId, { includePayload: true }));
	if (!graph) return [];
	const isLoader = (id: string) =>
		Object.keys(inputsOf(graph[id])).some((name) => ['image', 'video', 'audio', 'file', 'upload'].includes(name));
	const ids = sortedNodeIds(graph);
	const ordered = [...ids.filter(isLoader), ...ids.filter((id) => !isLoader(id))];
	return ordered.map((id) => ({
		name: nodeLabel(graph, id),
		value: id,
		description: `Inputs: ${Object.keys(inputsOf(graph[id])).join(', ') || '(none)'}`,
	}));
}
