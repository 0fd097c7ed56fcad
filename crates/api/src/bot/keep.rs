//! The bot page's "What it keeps" section, from the profile's `[keep]` and `[rights]`: what
//! of each entry is stored (DFB2), which objections and directives are read (FF14, FF15).

use super::lang::Lang;
use super::page::{list, para, section_start};
use super::words::{count, esc, join_and};
use tidings_policy::Profile;
use tidings_policy::profile::SummaryKeep;

pub(super) fn kept(html: &mut String, profile: &Profile, lang: Lang) {
    let keep = &profile.keep;
    section_start(
        html,
        "kept",
        &tr!(lang, "What it keeps", "Ce qu’il garde", "O que ele guarda"),
    );
    if keep.keeps_everything() {
        para(
            html,
            &tr!(
                lang,
                "It keeps each entry as the feed gives it (title, link, dates, summary, content, \
                 images and the other metadata), for its users to read, and serves it only to \
                 them.",
                "Il garde chaque entrée telle que le flux la donne (titre, lien, dates, résumé, \
                 contenu, images et autres métadonnées), pour que ses utilisateurs la lisent, et \
                 ne la sert qu’à eux.",
                "Ele guarda cada entrada como o feed a dá (título, link, datas, resumo, conteúdo, \
                 imagens e os demais metadados), para que seus usuários a leiam, e só a serve a \
                 eles.",
            ),
        );
    } else {
        let mut kept = vec![tr!(
            lang,
            "the title, the link and the dates",
            "le titre, le lien et les dates",
            "o título, o link e as datas"
        )];
        let most = count(lang, u64::from(keep.excerpt_max_chars));
        kept.push(match keep.summary {
            SummaryKeep::Full => tr!(lang, "the summary", "le résumé", "o resumo"),
            SummaryKeep::Excerpt => tr!(
                lang,
                "an excerpt of at most {most} characters of the summary, only if the feed \
                 supplies one and you object neither to AI crawlers nor to text and data mining",
                "un extrait d’au plus {most} caractères du résumé, seulement si le flux en \
                 fournit un et que vous ne vous opposez ni aux robots d’IA ni à la fouille de \
                 textes et de données",
                "um trecho de no máximo {most} caracteres do resumo, só se o feed fornecer um e \
                 você não se opuser nem a robôs de IA nem à mineração de textos e dados"
            ),
        });
        if keep.content {
            kept.push(tr!(
                lang,
                "the full content",
                "le contenu complet",
                "o conteúdo completo"
            ));
        }
        if keep.images {
            kept.push(tr!(lang, "images", "les images", "as imagens"));
        }
        if keep.metadata {
            kept.push(tr!(
                lang,
                "the other publisher metadata (authors, categories, rights, enclosures)",
                "les autres métadonnées de l’éditeur (auteurs, catégories, droits, pièces jointes)",
                "os demais metadados do editor (autores, categorias, direitos, anexos)"
            ));
        }
        let kept = join_and(lang, &kept);
        let mut never = Vec::new();
        if !keep.content {
            never.push(tr!(
                lang,
                "the full content",
                "le contenu complet",
                "o conteúdo completo"
            ));
        }
        if !keep.images {
            never.push(tr!(lang, "images", "les images", "as imagens"));
        }
        let never = if never.is_empty() {
            String::new()
        } else {
            let never = join_and(lang, &never);
            tr!(
                lang,
                " Never {never}: what is not kept is never stored, shown or exported.",
                " Jamais {never} : ce qui n’est pas gardé n’est jamais stocké, montré ni \
                 exporté.",
                " Nunca {never}: o que não é guardado nunca é armazenado, mostrado nem \
                 exportado."
            )
        };
        para(
            html,
            &tr!(
                lang,
                "Of each entry it keeps {kept}.{never}",
                "De chaque entrée, il garde {kept}.{never}",
                "De cada entrada, ele guarda {kept}.{never}"
            ),
        );
    }
    if profile.rights.thumbnails && keep.images {
        para(
            html,
            &tr!(
                lang,
                "It selects at most one thumbnail per entry (the feed’s declared thumbnail, \
                 else an image the entry carries, else the first image of its text) and shows it \
                 only under a licence it recognises that permits redistribution (Creative \
                 Commons, CC0, the Public Domain Mark): the image’s own, else the entry’s, else \
                 the feed’s. An image without one stays hidden. It fetches no image and no \
                 licence page to decide.",
                "Il choisit au plus une vignette par entrée (celle que le flux déclare, sinon une \
                 image que porte l’entrée, sinon la première image de son texte) et ne la montre \
                 que sous une licence qu’il reconnaît et qui permet la redistribution (Creative \
                 Commons, CC0, la marque du domaine public) : celle de l’image, sinon celle de \
                 l’entrée, sinon celle du flux. Une image sans licence reste cachée. Il ne lit \
                 ni image ni page de licence pour décider.",
                "Ele escolhe no máximo uma miniatura por entrada (a que o feed declara, senão uma \
                 imagem que a entrada traz, senão a primeira imagem do seu texto) e só a mostra \
                 sob uma licença que reconhece e que permite a redistribuição (Creative Commons, \
                 CC0, a marca de domínio público): a da imagem, senão a da entrada, senão a do \
                 feed. Uma imagem sem licença fica oculta. Ele não busca imagem nem página de \
                 licença para decidir."
            ),
        );
    }
    let mut read = Vec::new();
    if keep.summary == SummaryKeep::Excerpt {
        let crawlers: Vec<String> = profile
            .rights
            .ai_crawlers
            .iter()
            .map(|t| format!("<code>{}</code>", esc(t)))
            .collect();
        let crawlers = join_and(lang, &crawlers);
        read.push(tr!(
            lang,
            "An objection to AI crawlers: a <code>robots.txt</code> group for one of \
             {crawlers} that disallows the feed’s address or the entry’s own page.",
            "Une opposition aux robots d’IA : un groupe du <code>robots.txt</code> pour l’un \
             de {crawlers} qui interdit l’adresse du flux ou la page de l’entrée.",
            "Uma oposição a robôs de IA: um grupo do <code>robots.txt</code> para um de \
             {crawlers} que proíbe o endereço do feed ou a página da entrada."
        ));
        read.push(tr!(
            lang,
            "An objection to text and data mining: a <code>tdm-reservation: 1</code> header \
             on the feed (TDMRep).",
            "Une opposition à la fouille de textes et de données : un en-tête \
             <code>tdm-reservation: 1</code> sur le flux (TDMRep).",
            "Uma oposição à mineração de textos e dados: um cabeçalho \
             <code>tdm-reservation: 1</code> no feed (TDMRep)."
        ));
    }
    if profile.rights.directives {
        let token = esc(&profile.robots.token);
        read.push(tr!(
            lang,
            "<code>X-Robots-Tag</code> headers on the feed, for every bot or for {token}: \
             <code>nosnippet</code> keeps summaries out, <code>max-snippet</code> shortens \
             them, <code>noarchive</code> keeps no content.",
            "Les en-têtes <code>X-Robots-Tag</code> du flux, pour tous les robots ou pour \
             {token} : <code>nosnippet</code> écarte les résumés, <code>max-snippet</code> les \
             raccourcit, <code>noarchive</code> ne garde aucun contenu.",
            "Os cabeçalhos <code>X-Robots-Tag</code> do feed, para todos os robôs ou para o \
             {token}: <code>nosnippet</code> deixa os resumos de fora, <code>max-snippet</code> \
             os encurta, <code>noarchive</code> não guarda conteúdo."
        ));
    }
    if !read.is_empty() {
        para(
            html,
            &tr!(
                lang,
                "What it reads as your decision:",
                "Ce qu’il lit comme votre décision :",
                "O que ele lê como decisão sua:"
            ),
        );
        list(html, &read);
    }
    para(
        html,
        &tr!(
            lang,
            "It never reads <code>llms.txt</code>, <code>ai.txt</code>, \
             <code>AGENTS.md</code> or other free text as a permission or an instruction.",
            "Il ne lit jamais <code>llms.txt</code>, <code>ai.txt</code>, \
             <code>AGENTS.md</code> ni aucun texte libre comme une permission ou une \
             instruction.",
            "Ele nunca lê <code>llms.txt</code>, <code>ai.txt</code>, <code>AGENTS.md</code> \
             nem outro texto livre como permissão ou instrução."
        ),
    );
    html.push_str("</section>\n");
}
