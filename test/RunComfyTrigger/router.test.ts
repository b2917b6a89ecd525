/**
 * RunComfy Trigger's routing (poll() in RunComfyTrigger.node.ts): every event of the description reaches its
 * module in events/, an unknown event is refused clearly, and a scheduled poll keeps the event's state where a
 * rename cannot lose it while "Fetch Test Event" keeps none. A small fake IPollFunctions (parameters from a plain
 * object) runs the real poll(); the events' observe() are spies that say which one was reached.
 */
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { RunComfyTrigger } from '../../nodes/RunComfyTrigger/RunComfyTrigger.node';
import { balanceEvent } from '../../nodes/RunComfyTrigger/events/balance';
import { datasetEvent } from '../../nodes/RunComfyTrigger/events/dataset';
import { requestEvent } from '../../nodes/RunComfyTrigger/events/request';
import { trainingJobEvent } from '../../nodes/RunComfyTrigger/events/trainingJob';
import type { TriggerEvent, WatchReport } from '../../nodes/RunComfyTrigger/events/types';
import { stateKeyOf } from '../../nodes/RunComfyTrigger/state';
import { testNode } from '../helpers/testNode';

const trigger = new RunComfyTrigger();

/** Each event option and the module that must handle it. */
const EVENTS: Record<string, TriggerEvent> = {
	balanceBelow: balanceEvent,
	dataset: datasetEvent,
	request: requestEvent,
	trainingJob: trainingJobEvent,
};

const node = testNode({ id: 'trigger-under-test', name: 'RunComfy Trigger', type: 'n8n-nodes-runcomfy.runComfyTrigger' });

interface Poll {
	ctx: IPollFunctions;
	/** The workflow's global static data, as n8n would save it. */
	global: IDataObject;
}

function fakePollFunctions(parameters: IDataObject, mode: 'trigger' | 'manual'): Poll {
	const global: IDataObject = {};
	const ctx: Partial<IPollFunctions> = {
		getNode: () => node,
		getMode: () => mode,
		getNodeParameter: ((name: string, fallback?: unknown) =>
			name in parameters ? parameters[name] : fallback) as IPollFunctions['getNodeParameter'],
		getWorkflowStaticData: (type: string) => (type === 'global' ? global : {}),
		helpers: {
			returnJsonArray: (items: IDataObject | IDataObject[]) => [items].flat().map((json) => ({ json })),
		} as IPollFunctions['helpers'],
	};
	return { ctx: ctx as IPollFunctions, global };
}

/** Replaces the event's observe(): one watched id, in a reported state, whose item names the event reached. */
function spyOnEvent(event: string) {
	const seen: IPollFunctions[] = [];
	jest.spyOn(EVENTS[event], 'observe').mockImplementation(async (ctx): Promise<WatchReport> => {
		seen.push(ctx);
		return {
			ids: ['id-1'],
			observations: [{ id: 'id-1', key: 'finished', reported: true, output: async () => ({ reached: event }) }],
			failures: [],
		};
	});
	return seen;
}

const poll = async (p: Poll) => (await trigger.poll.call(p.ctx)) as INodeExecutionData[][] | null;

afterEach(() => jest.restoreAllMocks());

describe('RunComfy Trigger: routing of events', () => {
	it('offers exactly the events that have a module', () => {
		const event = trigger.description.properties.find((p) => p.name === 'event');
		expect((event?.options ?? []).map((o) => (o as { value: string }).value).sort()).toEqual(Object.keys(EVENTS).sort());
	});

	it.each(Object.keys(EVENTS))('%s reaches its module; a scheduled poll keeps its state under the node id', async (event) => {
		const seen = spyOnEvent(event);
		const p = fakePollFunctions({ event, fireForExisting: true }, 'trigger');
		expect(await poll(p)).toEqual([[{ json: { reached: event } }]]);
		expect(seen).toEqual([p.ctx]);
		const states = p.global[stateKeyOf(node)] as IDataObject;
		expect(Object.values(states)).toEqual([{ seen: { 'id-1': 'finished' } }]);
		// The same state again is no new event.
		expect(await trigger.poll.call(p.ctx)).toBeNull();
	});

	it('"Fetch Test Event" shows the current state and keeps none', async () => {
		spyOnEvent('request');
		const p = fakePollFunctions({ event: 'request' }, 'manual');
		expect(await poll(p)).toEqual([[{ json: { reached: 'request' } }]]);
		expect(p.global).toEqual({});
	});

	it('an unknown event throws a NodeOperationError that says what to do', async () => {
		const p = fakePollFunctions({ event: 'noSuchEvent' }, 'trigger');
		const error = await poll(p).then(
			() => undefined,
			(e: unknown) => e,
		);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error).toMatchObject({
			message: 'The event "noSuchEvent" is not supported',
			description: 'Pick another event, or update the node.',
		});
	});
});
