import { zipOf } from "./fixtures.ts";

export const XLSX_MAIN = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml";
const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';

/** A two-sheet workbook using shared strings, inline strings, numbers and booleans. */
export function xlsx(extra: Record<string, string> = {}): Promise<Uint8Array> {
  return zipOf({
    "[Content_Types].xml": `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Override PartName="/xl/workbook.xml" ContentType="${XLSX_MAIN}"/></Types>`,
    "xl/workbook.xml": `<?xml version="1.0"?><workbook ${NS} ${R}><sheets>
<sheet name="Sales 2024" sheetId="1" r:id="rId1"/><sheet name="Empty" sheetId="2" r:id="rId2"/></sheets></workbook>`,
    "xl/_rels/workbook.xml.rels": `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="worksheet" Target="worksheets/sheet1.xml"/>
<Relationship Id="rId2" Type="worksheet" Target="/xl/worksheets/sheet2.xml"/></Relationships>`,
    "xl/sharedStrings.xml": `<?xml version="1.0"?><sst ${NS}><si><t>Region</t></si><si><r><t>Amo</t></r><r><t>unt</t></r></si><si><t>North &amp; |West|</t></si></sst>`,
    "xl/worksheets/sheet1.xml": `<?xml version="1.0"?><worksheet ${NS}><sheetData>
<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="inlineStr"><is><t>Ok</t></is></c></row>
<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2"><v>12.5</v></c><c r="C2" t="b"><v>1</v></c></row>
<row r="3"><c r="B3"><v>7</v></c></row></sheetData></worksheet>`,
    "xl/worksheets/sheet2.xml": `<?xml version="1.0"?><worksheet ${NS}><sheetData/></worksheet>`,
    ...extra,
  });
}
