import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getBalance } from '../../../shared/transport';

const properties: INodeProperties[] = [];

export const description = updateDisplayOptions({ show: { resource: ['account'], operation: ['getBalance'] } }, properties);

/** Account → Get Balance: balance_usd, balance_microdollars and currency. */
export async function execute(this: IExecuteFunctions): Promise<IDataObject> {
	const balance = await getBalance(this);
	return { ...balance, currency: balance.currency ?? 'USD' };
}
