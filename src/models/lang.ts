// Language detection by stop-word counts: cheap, dependency-free and good enough to pick the
// language of canned replies and summary headings. Falls back to "en".
import { words } from "./text.ts";

export const STOPWORDS: Record<string, string[]> = {
  en: "the of and to in is that it for was on are as with be by this at from or have an not which but they were you he she his her what who when where how does do did has had can will would there their its".split(" "),
  fr: "le la les des du de et est un une que qui dans pour pas sur au aux ce cette il elle ils sont avec par plus ou ne se son sa ses nous vous leur mais comme ete etait quel quelle quels comment pourquoi ou est-ce".split(" "),
  de: "der die das und ist nicht ein eine zu den von mit sich des auf fur im dem auch es an als nach wie wird bei einer um oder sind was wer wann wo warum welche hat kann uber".split(" "),
  es: "el la los las de del y en que es un una por con no para se su al lo como mas pero sus le ya o este esta son fue ha muy donde cuando quien cual por que".split(" "),
  it: "il lo la gli le di e che un una per non sono con del della dei delle nel nella si da al alla ma come anche questo questa ha chi quando dove perche quale era".split(" "),
  pt: "o a os as de do da dos das e que em um uma para com nao no na por se mais como mas ao foi sao seu sua ou quando onde quem qual porque tem ja esta".split(" "),
  nl: "de het een en van in is dat op te zijn met voor niet die aan er maar om als ook bij of wat wie waar wanneer hoe waarom werd heeft door naar dit deze".split(" "),
};

const SETS: Record<string, Set<string>> = Object.fromEntries(
  Object.entries(STOPWORDS).map(([k, v]) => [k, new Set(v)]),
);
const ALL_STOP = new Set(Object.values(STOPWORDS).flat());

export function isStopword(word: string): boolean {
  return ALL_STOP.has(word);
}

export function detectLang(text: string): string {
  const ws = words(text.slice(0, 20000));
  let best = "en";
  let bestScore = 0;
  for (const [lang, set] of Object.entries(SETS)) {
    let score = 0;
    for (const w of ws) if (set.has(w)) score++;
    if (score > bestScore) {
      best = lang;
      bestScore = score;
    }
  }
  return best;
}

const NOT_FOUND: Record<string, string> = {
  en: "The documents do not contain the answer to this question.",
  fr: "Les documents ne contiennent pas la réponse à cette question.",
  de: "Die Dokumente enthalten keine Antwort auf diese Frage.",
  es: "Los documentos no contienen la respuesta a esta pregunta.",
  it: "I documenti non contengono la risposta a questa domanda.",
  pt: "Os documentos não contêm a resposta a esta pergunta.",
  nl: "De documenten bevatten het antwoord op deze vraag niet.",
};

const SUMMARY_TITLE: Record<string, string> = {
  en: "Summary", fr: "Résumé", de: "Zusammenfassung", es: "Resumen", it: "Riepilogo", pt: "Resumo", nl: "Samenvatting",
};

export function notFoundMessage(lang: string): string {
  return NOT_FOUND[lang] ?? NOT_FOUND.en!;
}

export function summaryTitle(lang: string): string {
  return SUMMARY_TITLE[lang] ?? SUMMARY_TITLE.en!;
}
