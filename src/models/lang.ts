// Language detection by stop-word counts: cheap, dependency-free and good enough to pick the
// language of canned replies and summary headings. English is the default: another language is
// named only when it clearly wins over English (see detectLang). Text mostly in Cyrillic is "ru".
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

// Words that tell a language apart in short questions but are no stop words for ranking: one-letter
// words and pronouns ("Do I need a receipt?" has one English stop word, "do", and two Portuguese
// ones, "do" and "a"). Kept out of STOPWORDS, which also decide what the lexical ranker and the
// hash embedder skip: adding to them would change every stored vector.
const DETECT_EXTRA: Record<string, string> = {
  en: "a i me my we us our your if so am been should could must may any all",
  fr: "a je tu on y",
  de: "ich du wir ihr man",
  es: "a yo mi",
  it: "a i io",
  pt: "eu",
  nl: "ik je we",
};
const DETECT: Record<string, Set<string>> = Object.fromEntries(
  Object.entries(STOPWORDS).map(([k, v]) => [k, new Set([...v, ...(DETECT_EXTRA[k] ?? "").split(" ").filter(Boolean)])]),
);
const EN = DETECT.en!;
/** Words of a language that are not English ones a text needs before it is taken for that language. */
export const MIN_DISTINCT_WORDS = 2;

/**
 * Russian when at least 3 letters and more than half of them are Cyrillic and every Cyrillic one
 * is in the Russian alphabet (Ukrainian, Serbian, Macedonian or Belarusian letters: none, the
 * stop words cannot tell either). Other scripts are not named. One pass over the characters.
 */
function scriptLang(text: string): string | null {
  let latin = 0;
  let cyrillic = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0xc0 && c <= 0x24f && c !== 0xd7 && c !== 0xf7)) latin++;
    else if (c >= 0x400 && c <= 0x4ff) {
      if (!((c >= 0x410 && c <= 0x44f) || c === 0x401 || c === 0x451)) return null;
      cyrillic++;
    }
  }
  return cyrillic >= 3 && cyrillic > latin ? "ru" : null;
}

/**
 * The language of `text` (its first 20,000 characters): "en" unless another one clearly wins.
 * Words a language shares with English ("do", "a", "in", "is") are evidence for neither: language
 * L is named when at least MIN_DISTINCT_WORDS of the text's words are L's and not English, at
 * least twice as many as the words that are English and not L's, and no other language has as
 * many. Short or ambiguous text ("Do I need a receipt?", a CSV of names and numbers, "x y") is
 * English, as is text in a script other than Latin or Russian Cyrillic.
 */
export function detectLang(text: string): string {
  const sample = text.slice(0, 20000);
  const script = scriptLang(sample);
  if (script) return script;
  const ws = words(sample);
  let best = "en";
  let bestOwn = 0;
  let tied = false;
  for (const [lang, set] of Object.entries(DETECT)) {
    if (lang === "en") continue;
    let own = 0;
    let english = 0;
    for (const w of ws) {
      if (set.has(w)) {
        if (!EN.has(w)) own++;
      } else if (EN.has(w)) english++;
    }
    if (own < MIN_DISTINCT_WORDS || own < 2 * english) continue;
    if (own > bestOwn) {
      best = lang;
      bestOwn = own;
      tied = false;
    } else if (own === bestOwn) tied = true;
  }
  return tied ? "en" : best;
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
