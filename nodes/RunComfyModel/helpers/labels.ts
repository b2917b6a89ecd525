import type { ModelEntry } from '../../shared/types';

/** Rows per page of the picker; the service allows up to 500. */
export const PICKER_PAGE_SIZE = 100;

function formatPrice(model: ModelEntry): string | undefined {
	if (typeof model.base_price_usd !== 'number') return undefined;
	const price = `$${Number(model.base_price_usd.toFixed(4))}`;
	return model.price_unit ? `${price}/${model.price_unit}` : price;
}

/** "FLUX.2 Flash · text-to-image · $0.04/image" */
export function modelLabel(model: ModelEntry): string {
	const parts = [model.display_name || model.model_id];
	if (model.categories?.length) parts.push(model.categories.join(', '));
	const price = formatPrice(model);
	if (price) parts.push(price);
	return parts.join(' · ');
}
