//! The bot page as HTML, rendered from a [`Profile`]: every number and name on it is read from
//! the profile, so the page cannot promise what the crawler does not do.
//!
//! Each sentence is written out in the three languages side by side (`tr!`); values go in
//! only as escaped text ([`esc`]) or as words built here from numbers.

use super::failures::{refusals, retry_after};
use super::keep::kept;
use super::lang::Lang;
use super::robots_txt::{blocking, robots};
use super::signing::signing;
use super::words::{bytes, count, duration, esc, seconds_f64};
use tidings_policy::Profile;

/// The whole bot page for `profile` in `lang`; `version` fills the User-Agent's `{version}`.
pub fn render(profile: &Profile, lang: Lang, version: &str) -> String {
    let token = esc(&profile.robots.token);
    let ua = esc(&profile.user_agent(version));
    let mut html = String::with_capacity(12 * 1024);
    let title = tr!(
        lang,
        "About {token}, a feed reader",
        "À propos de {token}, un lecteur de flux",
        "Sobre o {token}, um leitor de feeds",
    );
    html.push_str(&format!(
        "<!DOCTYPE html>\n<html lang=\"{tag}\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<link rel=\"stylesheet\" href=\"/static/bot.css\">\n\
         </head>\n<body>\n<header>\n",
        tag = lang.tag()
    ));
    html.push_str(&languages_nav(lang));
    html.push_str(&format!("<h1>{title}</h1>\n<p>"));
    html.push_str(&tr!(
        lang,
        "{token} reads the RSS, Atom and JSON feeds its users subscribe to. This page is \
         generated from the settings the crawler is running with: what it says is what it does.",
        "{token} lit les flux RSS, Atom et JSON auxquels ses utilisateurs sont abonnés. Cette \
         page est produite à partir des réglages avec lesquels le robot fonctionne : ce \
         qu’elle dit, c’est ce qu’il fait.",
        "O {token} lê os feeds RSS, Atom e JSON que seus usuários assinam. Esta página é gerada \
         a partir das configurações com que o robô está rodando: o que ela diz é o que ele faz.",
    ));
    html.push_str("</p>\n</header>\n<main>\n");

    user_agent(&mut html, profile, lang, &ua, &token);
    fetched(&mut html, profile, lang);
    kept(&mut html, profile, lang);
    how_often(&mut html, profile, lang);
    conditional(&mut html, lang);
    refusals(&mut html, profile, lang);
    retry_after(&mut html, profile, lang);
    robots(&mut html, profile, lang, &token);
    redirects(&mut html, profile, lang);
    limits(&mut html, profile, lang);
    blocking(&mut html, profile, lang, &token, version);

    let name = esc(&profile.name);
    let version = esc(version);
    html.push_str("</main>\n<footer>\n<p>");
    html.push_str(&tr!(
        lang,
        "Generated from the profile <code>{name}</code> of tidings {version}.",
        "Page produite à partir du profil <code>{name}</code> de tidings {version}.",
        "Página gerada a partir do perfil <code>{name}</code> do tidings {version}.",
    ));
    html.push_str("</p>\n</footer>\n</body>\n</html>\n");
    html
}

fn languages_nav(lang: Lang) -> String {
    let label = tr!(lang, "Other languages", "Autres langues", "Outros idiomas");
    let mut nav = format!("<nav aria-label=\"{label}\">\n<ul class=\"langs\">\n");
    for other in Lang::ALL.into_iter().filter(|&l| l != lang) {
        nav.push_str(&format!(
            "<li><a href=\"/bot?lang={t}\" hreflang=\"{t}\" lang=\"{t}\">{name}</a></li>\n",
            t = other.tag(),
            name = other.endonym()
        ));
    }
    nav.push_str("</ul>\n</nav>\n");
    nav
}

pub(super) fn section_start(html: &mut String, id: &str, heading: &str) {
    html.push_str(&format!(
        "<section aria-labelledby=\"{id}\">\n<h2 id=\"{id}\">{heading}</h2>\n"
    ));
}

pub(super) fn para(html: &mut String, text: &str) {
    html.push_str(&format!("<p>{text}</p>\n"));
}

pub(super) fn list(html: &mut String, items: &[String]) {
    html.push_str("<ul>\n");
    for item in items {
        html.push_str(&format!("<li>{item}</li>\n"));
    }
    html.push_str("</ul>\n");
}

fn user_agent(html: &mut String, profile: &Profile, lang: Lang, ua: &str, token: &str) {
    section_start(html, "user-agent", "User-Agent");
    para(
        html,
        &tr!(
            lang,
            "Every request we make carries this User-Agent:",
            "Chacune de nos requêtes porte ce User-Agent :",
            "Toda requisição que fazemos traz este User-Agent:",
        ),
    );
    html.push_str(&format!("<p class=\"ua\"><code>{ua}</code></p>\n"));
    para(
        html,
        &tr!(
            lang,
            "We never pose as a browser and never change it to get a different answer. In \
             robots.txt the bot answers to the name <code>{token}</code>.",
            "Nous ne nous faisons jamais passer pour un navigateur et ne le changeons jamais \
             pour obtenir une autre réponse. Dans robots.txt, le robot répond au nom \
             <code>{token}</code>.",
            "Nunca nos passamos por um navegador nem o trocamos para obter outra resposta. No \
             robots.txt, o robô responde pelo nome <code>{token}</code>.",
        ),
    );
    if profile.counts_subscribers() {
        para(
            html,
            &tr!(
                lang,
                "In place of <code>{{subscribers}}</code> each request carries how many of our \
                 users subscribe to the feed it reads, counted when the read starts; every \
                 request of that read, its robots.txt included, carries the same number.",
                "À la place de <code>{{subscribers}}</code>, chaque requête indique combien de \
                 nos utilisateurs sont abonnés au flux lu, compté au début de la lecture ; \
                 chaque requête de cette lecture, robots.txt compris, porte le même nombre.",
                "No lugar de <code>{{subscribers}}</code>, cada requisição traz quantos dos \
                 nossos usuários assinam o feed lido, contados no início da leitura; toda \
                 requisição dessa leitura, robots.txt incluído, traz o mesmo número.",
            ),
        );
    }
    let addresses = if profile.egress.publish {
        tr!(
            lang,
            "The addresses we read from are listed, one per line, at \
             <a href=\"/feed-ips.txt\">/feed-ips.txt</a>.",
            "Les adresses depuis lesquelles nous lisons sont listées, une par ligne, dans \
             <a href=\"/feed-ips.txt\">/feed-ips.txt</a>.",
            "Os endereços de onde lemos estão listados, um por linha, em \
             <a href=\"/feed-ips.txt\">/feed-ips.txt</a>.",
        )
    } else {
        tr!(
            lang,
            "We do not publish the addresses we read from; they may change.",
            "Nous ne publions pas les adresses depuis lesquelles nous lisons ; elles peuvent \
             changer.",
            "Não publicamos os endereços de onde lemos; eles podem mudar.",
        )
    };
    para(html, &addresses);
    para(
        html,
        &if profile.egress.off_when_refused_everywhere {
            tr!(
                lang,
                "A feed is read from one address. Only a person can move it to another, never \
                 our software and never because a site refused it. A refusal slows the feed \
                 down; once every address it was read from has refused it, through every step \
                 above, we stop reading it.",
                "Un flux est lu depuis une seule adresse. Seule une personne peut le déplacer \
                 vers une autre, jamais notre logiciel et jamais parce qu’un site l’a refusé. \
                 Un refus ralentit le flux ; quand chaque adresse depuis laquelle il a été lu \
                 l’a refusé, à chacune des étapes ci-dessus, nous cessons de le lire.",
                "Um feed é lido de um único endereço. Só uma pessoa pode mudá-lo para outro, \
                 nunca o nosso software e nunca porque um site o recusou. Uma recusa deixa o \
                 feed mais lento; quando todos os endereços de onde ele foi lido o recusaram, \
                 em cada etapa acima, deixamos de lê-lo.",
            )
        } else {
            tr!(
                lang,
                "A feed is read from one address. Only a person can move it to another, never \
                 our software and never because a site refused it. A refusal slows the feed \
                 down as described above.",
                "Un flux est lu depuis une seule adresse. Seule une personne peut le déplacer \
                 vers une autre, jamais notre logiciel et jamais parce qu’un site l’a refusé. \
                 Un refus ralentit le flux comme décrit ci-dessus.",
                "Um feed é lido de um único endereço. Só uma pessoa pode mudá-lo para outro, \
                 nunca o nosso software e nunca porque um site o recusou. Uma recusa deixa o \
                 feed mais lento, como descrito acima.",
            )
        },
    );
    signing(html, profile, lang);
    html.push_str("</section>\n");
}

fn fetched(html: &mut String, profile: &Profile, lang: Lang) {
    let max_age = duration(lang, profile.robots.max_age);
    section_start(
        html,
        "fetched",
        &tr!(lang, "What it fetches", "Ce qu’il lit", "O que ele busca"),
    );
    use tidings_model::RequestPurpose;
    let others: Vec<String> = profile
        .requests
        .purposes
        .iter()
        .filter(|p| !matches!(p, RequestPurpose::Feed | RequestPurpose::Robots))
        .map(|p| purpose_words(lang, *p, profile))
        .collect();
    let feeds = if others.is_empty() {
        tr!(
            lang,
            "The feed addresses our users subscribed to, and nothing else from your site: \
             no pages, images or links found in the feeds.",
            "Les adresses de flux auxquelles nos utilisateurs se sont abonnés, et rien \
             d’autre de votre site : ni pages, ni images, ni liens trouvés dans les flux.",
            "Os endereços de feed que nossos usuários assinaram e nada mais do seu site: \
             nem páginas, nem imagens, nem links encontrados nos feeds.",
        )
    } else {
        let others = super::words::join_and(lang, &others);
        tr!(
            lang,
            "The feed addresses our users subscribed to and, besides them, {others}.",
            "Les adresses de flux auxquelles nos utilisateurs se sont abonnés et, en plus, \
             {others}.",
            "Os endereços de feed que nossos usuários assinaram e, além deles, {others}.",
        )
    };
    // SR2: the catalogue's one-off reads, and SR9: whether they wait for a crawl-delay.
    let mut catalogue = tr!(
        lang,
        "A feed of our catalogue (a list our operators keep for readers to browse): read once \
         to check it before it is listed, and when a signed-in reader views it and we have \
         nothing stored; never on a schedule for being listed.",
        "Un flux de notre catalogue (une liste que nos opérateurs tiennent pour nos lecteurs) : \
         lu une fois pour le vérifier avant de l’y inscrire, et quand un lecteur connecté le \
         consulte sans que nous ayons rien gardé ; jamais à intervalles pour la seule raison \
         d’y figurer.",
        "Um feed do nosso catálogo (uma lista que nossos operadores mantêm para os leitores): \
         lido uma vez para verificá-lo antes de incluí-lo, e quando um leitor autenticado o \
         visualiza e não temos nada guardado; nunca de forma periódica só por estar nele.",
    );
    if profile.robots.crawl_delay && profile.robots.first_add_skips_crawl_delay {
        catalogue.push(' ');
        catalogue.push_str(&tr!(
            lang,
            "These reads, like the first read of a new subscription, do not wait for a \
             crawl-delay.",
            "Ces lectures, comme la première lecture d’un nouvel abonnement, n’attendent pas \
             le crawl-delay.",
            "Essas leituras, como a primeira leitura de uma nova assinatura, não aguardam o \
             crawl-delay.",
        ));
    }
    list(
        html,
        &[
            feeds,
            tr!(
                lang,
                "<code>/robots.txt</code> of each host, read again once our copy is older \
                 than {max_age}.",
                "Le fichier <code>/robots.txt</code> de chaque hôte, relu dès que notre copie \
                 date de plus de {max_age}.",
                "O <code>/robots.txt</code> de cada host, lido de novo quando a nossa cópia \
                 tem mais de {max_age}.",
            ),
            catalogue,
        ],
    );
    html.push_str("</section>\n");
}

/// A request purpose other than feeds and robots.txt, as the page names it: what, how much
/// and why, with the profile's numbers.
fn purpose_words(lang: Lang, purpose: tidings_model::RequestPurpose, profile: &Profile) -> String {
    use super::words::bytes;
    use tidings_model::RequestPurpose as P;
    let pages = &profile.pages;
    match purpose {
        P::ArticlePage => {
            let most = bytes(lang, pages.max_page_bytes);
            tr!(
                lang,
                "the page an entry links to when the entry has no image, once, reading at most \
                 {most} of it to find its preview image (<code>og:image</code>); we do not \
                 fetch that image",
                "la page vers laquelle pointe une entrée sans image, une seule fois, en lisant \
                 au plus {most} pour trouver son image d’aperçu (<code>og:image</code>) ; nous \
                 ne téléchargeons pas cette image",
                "a página para a qual aponta uma entrada sem imagem, uma única vez, lendo no \
                 máximo {most} para achar a imagem de prévia (<code>og:image</code>); não \
                 baixamos essa imagem"
            )
        }
        P::Icon => {
            let again = super::words::duration(lang, pages.icon_refresh);
            tr!(
                lang,
                "your site’s icon (the one your feed names, else <code>/favicon.ico</code>, \
                 <code>/apple-touch-icon.png</code>, <code>/apple-touch-icon-precomposed.png</code>, \
                 one at a time), kept on our side and shown to our users from there, read again \
                 every {again}",
                "l’icône de votre site (celle que nomme votre flux, sinon \
                 <code>/favicon.ico</code>, <code>/apple-touch-icon.png</code>, \
                 <code>/apple-touch-icon-precomposed.png</code>, une à la fois), gardée chez \
                 nous et montrée à nos utilisateurs depuis chez nous, relue tous les {again}",
                "o ícone do seu site (o que o seu feed indica, senão <code>/favicon.ico</code>, \
                 <code>/apple-touch-icon.png</code>, <code>/apple-touch-icon-precomposed.png</code>, \
                 um de cada vez), guardado do nosso lado e mostrado aos nossos usuários a partir \
                 dali, lido de novo a cada {again}"
            )
        }
        P::Image => {
            let most = bytes(lang, profile.images.max_image_bytes);
            tr!(
                lang,
                "the thumbnail an entry declares, only when its licence permits showing it, \
                 copied once (at most {most}, never resized) and shown to our users from our \
                 copy",
                "la vignette que déclare une entrée, seulement si sa licence permet de la \
                 montrer, copiée une fois (au plus {most}, jamais redimensionnée) et montrée à \
                 nos utilisateurs depuis notre copie",
                "a miniatura que uma entrada declara, só quando a licença permite mostrá-la, \
                 copiada uma vez (no máximo {most}, nunca redimensionada) e mostrada aos nossos \
                 usuários a partir da nossa cópia"
            )
        }
        P::Discovery => {
            let d = &profile.discovery;
            let links = d.max_body_links;
            let paths = d.common_paths.len();
            let most = d.max_candidates;
            let again = duration(lang, d.cooldown);
            tr!(
                lang,
                "pages submitted to find the feeds they name, then the links of the page that \
                 look like feeds (at most {links}) and {paths} common feed paths of its site, \
                 at most {most} URLs per page; a URL that is no feed is not asked again for \
                 {again}",
                "les pages soumises pour trouver les flux qu’elles indiquent, puis les liens de \
                 la page qui ressemblent à des flux (au plus {links}) et {paths} chemins de flux \
                 courants de son site, au plus {most} URL par page ; une URL qui n’est pas un \
                 flux n’est pas redemandée avant {again}",
                "as páginas enviadas para achar os feeds que elas indicam, depois os links da \
                 página que parecem feeds (no máximo {links}) e {paths} caminhos de feed comuns \
                 do site, no máximo {most} URLs por página; uma URL que não é feed não é pedida \
                 de novo por {again}"
            )
        }
        P::WebSub => {
            let w = &profile.websub;
            let lease = duration(lang, w.lease);
            let poll = duration(lang, w.live_poll);
            tr!(
                lang,
                "the WebSub hub your feed names (<code>rel=\"hub\"</code>), asked to send us \
                 your new entries: a subscription of {lease}, renewed before it ends, with a \
                 secret so that we keep only what your hub signed; while it lasts we read your \
                 feed itself at most every {poll}",
                "le hub WebSub que nomme votre flux (<code>rel=\"hub\"</code>), à qui nous \
                 demandons de nous envoyer vos nouvelles entrées : un abonnement de {lease}, \
                 renouvelé avant son terme, avec un secret pour ne garder que ce que votre hub \
                 a signé ; tant qu’il dure, nous lisons votre flux lui-même au plus tous les \
                 {poll}",
                "o hub WebSub que o seu feed indica (<code>rel=\"hub\"</code>), a quem pedimos \
                 que nos envie as suas novas entradas: uma assinatura de {lease}, renovada antes \
                 de acabar, com um segredo para guardarmos só o que o seu hub assinou; enquanto \
                 ela dura, lemos o próprio feed no máximo a cada {poll}"
            )
        }
        P::Feed | P::Robots => String::new(),
    }
}

fn how_often(html: &mut String, profile: &Profile, lang: Lang) {
    let s = &profile.schedule;
    let (default, min, max) = (
        duration(lang, s.default_interval),
        duration(lang, s.min_interval),
        duration(lang, s.max_interval),
    );
    let gap = seconds_f64(lang, profile.pacing.host_gap);
    section_start(
        html,
        "how-often",
        &tr!(lang, "How often", "À quel rythme", "Com que frequência"),
    );
    let gap_line = if profile.robots.crawl_delay {
        tr!(
            lang,
            "Between two requests to the same host, at least: {gap} (more if your robots.txt \
             asks for it, see below).",
            "Entre deux requêtes vers un même hôte, au moins : {gap} (davantage si votre \
             robots.txt le demande, voir plus bas).",
            "Entre duas requisições ao mesmo host, no mínimo: {gap} (mais, se o seu robots.txt \
             pedir; veja abaixo).",
        )
    } else {
        tr!(
            lang,
            "Between two requests to the same host, at least: {gap}.",
            "Entre deux requêtes vers un même hôte, au moins : {gap}.",
            "Entre duas requisições ao mesmo host, no mínimo: {gap}.",
        )
    };
    list(
        html,
        &[
            tr!(
                lang,
                "Usual time between two reads of a feed: {default}.",
                "Intervalle habituel entre deux lectures d’un flux : {default}.",
                "Intervalo habitual entre duas leituras de um feed: {default}.",
            ),
            tr!(
                lang,
                "Shortest, whatever the feed or the server says: {min}.",
                "Intervalle le plus court, quoi que disent le flux ou le serveur : {min}.",
                "Intervalo mais curto, diga o que disser o feed ou o servidor: {min}.",
            ),
            tr!(
                lang,
                "Longest usual interval between two reads of an active feed: {max}. A server’s \
                 Retry-After can make us wait longer (see below).",
                "Intervalle habituel le plus long entre deux lectures d’un flux actif : {max}. Un \
                 Retry-After du serveur peut nous faire attendre plus longtemps (voir plus bas).",
                "Intervalo habitual mais longo entre duas leituras de um feed ativo: {max}. Um \
                 Retry-After do servidor pode nos fazer esperar mais (veja abaixo).",
            ),
            gap_line,
        ],
    );
    hints(html, profile, lang, &min, &max);
    html.push_str("</section>\n");
}

fn hints(html: &mut String, profile: &Profile, lang: Lang, min: &str, max: &str) {
    let h = &profile.hints;
    html.push_str(&format!(
        "<h3>{}</h3>\n",
        tr!(
            lang,
            "What your feed can ask for",
            "Ce que votre flux peut demander",
            "O que o seu feed pode pedir",
        )
    ));
    let mut longer = Vec::new();
    if h.ttl {
        longer.push(tr!(
            lang,
            "RSS <code>ttl</code>: the interval is at least that many minutes.",
            "<code>ttl</code> (RSS) : l’intervalle dure au moins ce nombre de minutes.",
            "<code>ttl</code> do RSS: o intervalo é de pelo menos esse número de minutos.",
        ));
    }
    if h.skip_hours {
        longer.push(tr!(
            lang,
            "RSS <code>skipHours</code> and <code>skipDays</code>: no read is scheduled in \
             those hours (GMT) or days.",
            "<code>skipHours</code> et <code>skipDays</code> (RSS) : aucune lecture n’est \
             prévue pendant ces heures (GMT) ou ces jours.",
            "<code>skipHours</code> e <code>skipDays</code> do RSS: nenhuma leitura é agendada \
             nessas horas (GMT) ou nesses dias.",
        ));
    }
    if h.syndication {
        longer.push(tr!(
            lang,
            "<code>sy:updatePeriod</code> and <code>sy:updateFrequency</code>: the interval is \
             at least the period they give.",
            "<code>sy:updatePeriod</code> et <code>sy:updateFrequency</code> : l’intervalle \
             est au moins la période indiquée.",
            "<code>sy:updatePeriod</code> e <code>sy:updateFrequency</code>: o intervalo é de \
             pelo menos o período indicado.",
        ));
    }
    if h.cache_control {
        longer.push(tr!(
            lang,
            "<code>Cache-Control: max-age</code> and <code>Expires</code> on your answers: no \
             read before they run out.",
            "<code>Cache-Control: max-age</code> et <code>Expires</code> dans vos réponses : \
             pas de nouvelle lecture avant leur échéance.",
            "<code>Cache-Control: max-age</code> e <code>Expires</code> nas suas respostas: \
             nenhuma leitura antes de expirarem.",
        ));
    }
    if longer.is_empty() {
        para(
            html,
            &tr!(
                lang,
                "We do not read <code>ttl</code>, <code>skipHours</code>, \
                 <code>sy:updatePeriod</code> or <code>Cache-Control</code>: only the \
                 intervals above apply.",
                "Nous ne tenons pas compte de <code>ttl</code>, <code>skipHours</code>, \
                 <code>sy:updatePeriod</code> ni <code>Cache-Control</code> : seuls les \
                 intervalles ci-dessus s’appliquent.",
                "Não levamos em conta <code>ttl</code>, <code>skipHours</code>, \
                 <code>sy:updatePeriod</code> nem <code>Cache-Control</code>: valem só os \
                 intervalos acima.",
            ),
        );
    } else {
        para(
            html,
            &tr!(
                lang,
                "These hints can only make us wait longer, never shorter:",
                "Ces indications ne peuvent que nous faire attendre plus longtemps, jamais \
                 moins :",
                "Estas indicações só podem nos fazer esperar mais, nunca menos:",
            ),
        );
        list(html, &longer);
    }
    if h.adaptive {
        para(
            html,
            &tr!(
                lang,
                "The interval also follows how often the feed publishes, between {min} and \
                 {max}.",
                "L’intervalle suit aussi le rythme de publication du flux, entre {min} et \
                 {max}.",
                "O intervalo também acompanha o ritmo de publicação do feed, entre {min} e \
                 {max}.",
            ),
        );
    }
    if h.jitter > 0.0 {
        let pct = percent(lang, h.jitter);
        para(
            html,
            &tr!(
                lang,
                "Each wait is lengthened by up to {pct}, by a different amount for each feed, \
                 so that feeds do not all arrive at once.",
                "Chaque attente est allongée de {pct} au plus, d’une valeur propre à chaque \
                 flux, pour que les flux n’arrivent pas tous en même temps.",
                "Cada espera é alongada em até {pct}, num valor diferente para cada feed, para \
                 que os feeds não cheguem todos ao mesmo tempo.",
            ),
        );
    }
}

/// A fraction as a percentage: "10%", « 10 % », "10%".
fn percent(lang: Lang, fraction: f64) -> String {
    let n = (fraction * 1000.0).round() / 10.0;
    let text = format!("{n}");
    match lang {
        Lang::En => format!("{text}%"),
        Lang::Fr => format!("{}\u{202f}%", text.replace('.', ",")),
        Lang::Pt => format!("{}%", text.replace('.', ",")),
    }
}

fn conditional(html: &mut String, lang: Lang) {
    section_start(
        html,
        "conditional",
        &tr!(
            lang,
            "Conditional requests",
            "Requêtes conditionnelles",
            "Requisições condicionais",
        ),
    );
    para(
        html,
        &tr!(
            lang,
            "Each read sends back the <code>ETag</code> and <code>Last-Modified</code> values \
             of the previous answer exactly as received (<code>If-None-Match</code>, \
             <code>If-Modified-Since</code>), so a feed that has not changed costs you a \
             <code>304 Not Modified</code> and no body. Only the first read of a feed is \
             unconditional.",
            "Chaque lecture renvoie les valeurs <code>ETag</code> et <code>Last-Modified</code> \
             de la réponse précédente telles que reçues (<code>If-None-Match</code>, \
             <code>If-Modified-Since</code>) : un flux inchangé ne vous coûte qu’une réponse \
             <code>304 Not Modified</code>, sans corps. Seule la première lecture d’un flux est \
             inconditionnelle.",
            "Cada leitura reenvia os valores <code>ETag</code> e <code>Last-Modified</code> da \
             resposta anterior exatamente como recebidos (<code>If-None-Match</code>, \
             <code>If-Modified-Since</code>): um feed que não mudou custa só um \
             <code>304 Not Modified</code>, sem corpo. Só a primeira leitura de um feed é \
             incondicional.",
        ),
    );
    html.push_str("</section>\n");
}

fn redirects(html: &mut String, profile: &Profile, lang: Lang) {
    let hops = profile.fetch.max_redirects;
    let n = count(lang, u64::from(hops));
    section_start(
        html,
        "redirects",
        &tr!(lang, "Redirects", "Redirections", "Redirecionamentos"),
    );
    let mut items = vec![if hops == 0 {
        tr!(
            lang,
            "We do not follow redirects.",
            "Nous ne suivons pas les redirections.",
            "Não seguimos redirecionamentos.",
        )
    } else {
        tr!(
            lang,
            "We follow up to {n} redirects per read, each a request of its own.",
            "Nous suivons jusqu’à {n} redirections par lecture, chacune étant une requête à \
             part entière.",
            "Seguimos até {n} redirecionamentos por leitura, cada um sendo uma requisição \
             própria.",
        )
    }];
    let after = profile.redirects.persist_permanent_after;
    items.push(if after == 0 {
        tr!(
            lang,
            "A permanent redirect (301 or 308) moves the feed’s stored address to its target \
             at the first successful read there.",
            "Une redirection permanente (301 ou 308) remplace l’adresse enregistrée du flux \
             par sa cible dès la première lecture réussie.",
            "Um redirecionamento permanente (301 ou 308) troca o endereço salvo do feed pelo \
             destino já na primeira leitura bem-sucedida.",
        )
    } else {
        let d = duration(lang, after);
        tr!(
            lang,
            "A permanent redirect (301 or 308) moves the feed’s stored address to its target \
             once it has pointed there for {d} of successful reads.",
            "Une redirection permanente (301 ou 308) qui mène à la même cible pendant {d} de \
             lectures réussies remplace l’adresse enregistrée du flux par cette cible.",
            "Um redirecionamento permanente (301 ou 308) troca o endereço salvo do feed pelo \
             destino depois de apontar para ele durante {d} de leituras bem-sucedidas.",
        )
    });
    items.push(tr!(
        lang,
        "Temporary redirects (302, 307) never change it.",
        "Les redirections temporaires (302, 307) ne la changent jamais.",
        "Redirecionamentos temporários (302, 307) nunca o alteram.",
    ));
    list(html, &items);
    html.push_str("</section>\n");
}

fn limits(html: &mut String, profile: &Profile, lang: Lang) {
    let f = &profile.fetch;
    let (connect, whole, body) = (
        duration(lang, f.connect_timeout),
        duration(lang, f.timeout),
        bytes(lang, f.max_body_bytes),
    );
    let (per_response, per_day) = (
        count(lang, u64::from(profile.entries.max_per_response)),
        count(lang, u64::from(profile.entries.max_new_per_day)),
    );
    let text = bytes(lang, u64::from(profile.entries.max_text_bytes));
    section_start(
        html,
        "limits",
        &tr!(
            lang,
            "Limits on each request",
            "Limites de chaque requête",
            "Limites de cada requisição",
        ),
    );
    list(
        html,
        &[
            tr!(
                lang,
                "Time allowed to connect: {connect}.",
                "Temps accordé pour se connecter : {connect}.",
                "Tempo para conectar: {connect}.",
            ),
            tr!(
                lang,
                "Time allowed for a whole answer, headers and body: {whole}.",
                "Temps accordé pour une réponse entière, en-têtes et corps : {whole}.",
                "Tempo para uma resposta inteira, cabeçalhos e corpo: {whole}.",
            ),
            tr!(
                lang,
                "Largest body read, counted after decompression: {body}; a larger feed is not \
                 read.",
                "Plus gros corps lu, compté après décompression : {body} ; un flux plus gros \
                 n’est pas lu.",
                "Maior corpo lido, contado após a descompressão: {body}; um feed maior não é \
                 lido.",
            ),
            tr!(
                lang,
                "Most entries in one answer: {per_response}; an answer with more is not \
                 accepted (nothing of it is kept) and the feed is read again later, as after \
                 any answer that is no readable feed.",
                "Nombre maximal d’entrées dans une réponse : {per_response} ; une réponse qui \
                 en contient plus n’est pas acceptée (rien n’en est gardé) et le flux est relu \
                 plus tard, comme après toute réponse qui n’est pas un flux lisible.",
                "Máximo de entradas numa resposta: {per_response}; uma resposta com mais não é \
                 aceita (nada dela é guardado) e o feed é lido de novo mais tarde, como depois \
                 de qualquer resposta que não seja um feed legível.",
            ),
            tr!(
                lang,
                "Most new entries kept from one feed within 24 hours: {per_day}; a read that \
                 would bring more keeps none of them, and we stop reading the feed until a \
                 person has looked at it.",
                "Nombre maximal de nouvelles entrées gardées d’un flux en 24 heures : \
                 {per_day} ; une lecture qui en apporterait plus n’en garde aucune, et nous \
                 cessons de lire le flux jusqu’à ce qu’une personne l’ait examiné.",
                "Máximo de novas entradas guardadas de um feed em 24 horas: {per_day}; uma \
                 leitura que traria mais não guarda nenhuma, e paramos de ler o feed até que \
                 uma pessoa o tenha examinado.",
            ),
            tr!(
                lang,
                "Longest text kept of one title, summary or article: {text}; a longer one is \
                 cut to that length.",
                "Plus long texte gardé d’un titre, d’un résumé ou d’un article : {text} ; un \
                 texte plus long est coupé à cette longueur.",
                "Maior texto guardado de um título, resumo ou artigo: {text}; um texto mais \
                 longo é cortado nesse tamanho.",
            ),
        ],
    );
    html.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_follow_the_language() {
        assert_eq!(percent(Lang::En, 0.1), "10%");
        assert_eq!(percent(Lang::Fr, 0.125), "12,5\u{202f}%");
        assert_eq!(percent(Lang::Pt, 0.05), "5%");
    }
}
