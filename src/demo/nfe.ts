// 40 received NF-e over the demo period: every manifestation state (none, ciencia,
// desconhecimento, confirmacao), cancelled notes, one in processing, one stock transfer, notes
// without a brand (historical), each with a valid 44-digit access key.
import { BRANDS } from './catalog.ts';
import { accessKey } from './documents.ts';
import { SUPPLIERS } from './finance.ts';
import { brazilInstant, dayBefore, dayOf, type Period } from './period.ts';
import type { Random } from './random.ts';

const MANIFESTATIONS = [null, 'ciencia', 'desconhecimento', 'confirmacao'] as const;
const STATE_CODE: Record<number, { code: string; uf: string }> = {
  1: { code: '35', uf: 'SP' },
  2: { code: '13', uf: 'AM' },
};

export function demoNfe(random: Random, period: Period) {
  const notes: Record<string, unknown>[] = [];
  for (let n = 0; n < 40; n++) {
    const restaurantId = n < 28 ? 1 : 2;
    const brands = BRANDS.filter((b) => b.restaurant_id === restaurantId);
    // Most confirmed notes of Cantina Bella sit on its default brand, so the list without brand_id
    // (what an integrator sends first) shows notes; a few sit on its second brand.
    const brandId = n % 9 === 4 ? null : restaurantId === 1 && n % 3 === 2 ? 11 : brands[0].id;
    const transfer = n === 7;
    const issuer = transfer
      ? { id: null, name: brands[0].fantasy_name, document: brands[0].cnpj }
      : random.pick(
          SUPPLIERS.filter((s) => s.restaurant_id === restaurantId).map((s) => ({
            ...s,
            id: s.id as number | null,
          })),
        );
    const month = period.months[n % 4];
    const day = dayOf(month, random.int(1, 28));
    const date = day < period.today ? day : dayBefore(period.today);
    const issued_at = brazilInstant(
      date,
      `${String(random.int(7, 19)).padStart(2, '0')}:${random.int(10, 59)}`,
    );
    const manifestation = MANIFESTATIONS[n % 4];
    const cancelled = n === 11 || n === 30;
    const processing = n === 21;
    const number = 1200 + n * 37;
    const key = accessKey({
      stateCode: STATE_CODE[restaurantId].code,
      issuedAt: issued_at,
      issuerCnpj: issuer.document,
      series: 1,
      number,
      code: random.digits(8),
    });
    notes.push({
      id: 7001 + n,
      restaurant_id: restaurantId,
      brand_id: brandId,
      access_key: key,
      series: '1',
      state: STATE_CODE[restaurantId].uf,
      type: '1',
      issuer_name: issuer.name,
      issuer_document: issuer.document,
      total: (random.int(5000, 2500000) / 100).toFixed(2),
      situation: processing ? 'processando_autorizacao' : 'autorizada',
      complete: manifestation !== null && manifestation !== 'desconhecimento',
      manifestation_type: manifestation,
      manifested_at: manifestation ? brazilInstant(date, '23:00') : null,
      correction_number: n === 5 ? 1 : null,
      correction_text: n === 5 ? 'Correção do endereço de entrega' : null,
      correction_issued_at: n === 5 ? brazilInstant(date, '23:10') : null,
      canceled_at: cancelled ? brazilInstant(date, '23:20') : null,
      cancellation_reason: cancelled ? 'Erro na emissão da nota' : null,
      locally_canceled_at: n === 33 ? brazilInstant(date, '23:30') : null,
      return_reference: null,
      reference: processing ? `ref-${key.slice(-8)}` : null,
      url: null,
      provider_id: issuer.id,
      version: 1 + (n % 3),
      digest: Buffer.from(key.slice(0, 20)).toString('base64'),
      sped: null,
      is_stock_transfer: transfer,
      issued_at,
      processing_at: processing ? brazilInstant(date, '06:00') : null,
    });
  }
  return notes;
}
