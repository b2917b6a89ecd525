import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

/** Parameter name of the "fire on the first poll too" switch (one per event, each with its own wording). */
export const FIRE_FOR_EXISTING = 'fireForExisting';

/**
 * The switch that decides what the first poll after publishing does: off (default), it only records the current
 * states, so runs that finished long ago do not fire; on, it fires for `what` as well.
 */
export function fireForExistingProperty(
	show: IDisplayOptions['show'],
	displayName: string,
	what: string,
	later = 'IDs added to the list later fire as soon as they are seen finished.',
): INodeProperties {
	return {
		displayName,
		name: FIRE_FOR_EXISTING,
		type: 'boolean',
		default: false,
		description: `Whether the first check after publishing also fires for ${what}. Off: that check only records the current states and only later changes fire. ${later}`,
		displayOptions: { show },
	};
}
