import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { failedItemOrThrow } from '../../../shared/items';
import { roundToMicrodollars } from '../../../shared/money';
import { estimateRun } from '../../helpers/pricing';
import { modelRunKind } from '../../helpers/jobKind';
import { loraProperty, modelInputProperties } from '../../helpers/properties';

const properties: INodeProperties[] = [...modelInputProperties, loraProperty];

export const description = updateDisplayOptions({ show: { resource: ['model'], operation: ['estimateCost'] } }, properties);

/**
 * Model → Estimate Cost: every item is checked exactly as Run checks it, and priced from the catalog
 * (`base_price_usd` × units of `price_unit`); nothing is submitted or paid. Each item gets its estimate (or why
 * there is none) and the batch's total.
 */
export async function executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const kind = modelRunKind(this);
	const out: INodeExecutionData[] = [];
	const rows: Array<{ itemIndex: number; json: IDataObject; usd?: number }> = [];
	for (let i = 0; i < items.length; i++) {
		try {
			const p = await kind.prepare(i, {});
			const estimate = estimateRun(p.model, p.body);
			const json: IDataObject = estimate.estimated
				? {
						model_id: p.modelId,
						estimated: true,
						estimated_cost_usd: estimate.usd,
						base_price_usd: estimate.basePriceUsd,
						price_unit: estimate.unit,
						units: estimate.units,
						basis: estimate.basis,
					}
				: { model_id: p.modelId, estimated: false, reason: estimate.reason };
			rows.push({ itemIndex: i, json, usd: estimate.estimated ? estimate.usd : undefined });
		} catch (error) {
			out[i] = failedItemOrThrow(this, error, i);
		}
	}
	const unknown = rows.filter((r) => r.usd === undefined).length;
	const total = roundToMicrodollars(rows.reduce((sum, r) => sum + (r.usd ?? 0), 0));
	const batch: IDataObject = {
		batch_estimated_cost_usd: total,
		batch_items: items.length,
		batch_items_estimated: rows.length - unknown,
		...(unknown ? { batch_note: `${unknown} item${unknown === 1 ? ' has' : 's have'} no estimate; the total leaves them out` } : {}),
	};
	for (const row of rows) out[row.itemIndex] = { json: { ...row.json, ...batch }, pairedItem: { item: row.itemIndex } };
	return out.filter((item) => item !== undefined);
}
