//! The bot page as HTML, rendered from a [`Profile`]: every number and name on it is read from
//! the profile, so the page cannot promise what the crawler does not do.
//!
//! Each sentence is written out in the three languages side by side ([`tr!`]); values go in
//! only as escaped text ([`esc`]) or as words built here from numbers.

use super::lang::Lang;
use super::words::{bytes, count, duration, esc, join_and, seconds_f64};
use tidings_policy::Profile;
use tidings_policy::profile::{
    FailureKind, Ladder, LongCrawlDelay, MAX_CRAWL_DELAY_CAP, OnRobotsFailure, StepUnit,
};

/// One sentence in the page's language; the format strings capture escaped locals only.
macro_rules! tr {
    ($lang:expr, $en:literal, $fr:literal, $pt:literal $(,)?) => {
        match $lang {
            Lang::En => format!($en),
            Lang::Fr => format!($fr),
            Lang::Pt => format!($pt),
        }
    };
}

/// Every failure kind, to tell whether the ladders leave some to the doubling backoff.
const ALL_KINDS: [FailureKind; 9] = [
    FailureKind::Forbidden,
    FailureKind::TooManyRequests,
    FailureKind::Challenge,
    FailureKind::NotFound,
    FailureKind::ClientError,
    FailureKind::ServerError,
    FailureKind::NoAnswer,
    FailureKind::BadFeed,
    FailureKind::NotAllowed,
];

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

    user_agent(&mut html, lang, &ua, &token);
    fetched(&mut html, profile, lang);
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

fn section_start(html: &mut String, id: &str, heading: &str) {
    html.push_str(&format!(
        "<section aria-labelledby=\"{id}\">\n<h2 id=\"{id}\">{heading}</h2>\n"
    ));
}

fn para(html: &mut String, text: &str) {
    html.push_str(&format!("<p>{text}</p>\n"));
}

fn list(html: &mut String, items: &[String]) {
    html.push_str("<ul>\n");
    for item in items {
        html.push_str(&format!("<li>{item}</li>\n"));
    }
    html.push_str("</ul>\n");
}

fn user_agent(html: &mut String, lang: Lang, ua: &str, token: &str) {
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
    html.push_str("</section>\n");
}

fn fetched(html: &mut String, profile: &Profile, lang: Lang) {
    let max_age = duration(lang, profile.robots.max_age);
    section_start(
        html,
        "fetched",
        &tr!(lang, "What it fetches", "Ce qu’il lit", "O que ele busca"),
    );
    list(
        html,
        &[
            tr!(
                lang,
                "The feed addresses our users subscribed to, and nothing else from your site: \
                 no pages, images or links found in the feeds.",
                "Les adresses de flux auxquelles nos utilisateurs se sont abonnés, et rien \
                 d’autre de votre site : ni pages, ni images, ni liens trouvés dans les flux.",
                "Os endereços de feed que nossos usuários assinaram e nada mais do seu site: \
                 nem páginas, nem imagens, nem links encontrados nos feeds.",
            ),
            tr!(
                lang,
                "<code>/robots.txt</code> of each host, read again once our copy is older \
                 than {max_age}.",
                "Le fichier <code>/robots.txt</code> de chaque hôte, relu dès que notre copie \
                 date de plus de {max_age}.",
                "O <code>/robots.txt</code> de cada host, lido de novo quando a nossa cópia \
                 tem mais de {max_age}.",
            ),
        ],
    );
    html.push_str("</section>\n");
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
                "Longest between two reads of an active feed: {max}.",
                "Intervalle le plus long entre deux lectures d’un flux actif : {max}.",
                "Intervalo mais longo entre duas leituras de um feed ativo: {max}.",
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
            "<code>Cache-Control: max-age</code> and <code>Expires</code> on our answer: no \
             read before they run out.",
            "<code>Cache-Control: max-age</code> et <code>Expires</code> dans la réponse : \
             pas de nouvelle lecture avant leur échéance.",
            "<code>Cache-Control: max-age</code> e <code>Expires</code> na resposta: nenhuma \
             leitura antes de expirarem.",
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

fn kind_words(lang: Lang, kind: FailureKind) -> String {
    match kind {
        FailureKind::Forbidden => tr!(
            lang,
            "401 or 403 (forbidden)",
            "401 ou 403 (accès refusé)",
            "401 ou 403 (acesso negado)",
        ),
        FailureKind::TooManyRequests => tr!(
            lang,
            "429 (too many requests)",
            "429 (trop de requêtes)",
            "429 (requisições demais)",
        ),
        FailureKind::Challenge => tr!(
            lang,
            "a bot challenge page",
            "une page de vérification anti-robot",
            "uma página de verificação anti-robô",
        ),
        FailureKind::NotFound => tr!(
            lang,
            "404 (not found)",
            "404 (introuvable)",
            "404 (não encontrado)"
        ),
        FailureKind::ClientError => tr!(
            lang,
            "another 4xx error (410 aside)",
            "une autre erreur 4xx (hors 410)",
            "outro erro 4xx (exceto 410)",
        ),
        FailureKind::ServerError => tr!(
            lang,
            "5xx (server error)",
            "5xx (erreur du serveur)",
            "5xx (erro do servidor)",
        ),
        FailureKind::NoAnswer => tr!(
            lang,
            "no answer (connection failed or timed out)",
            "pas de réponse (connexion impossible ou délai dépassé)",
            "nenhuma resposta (falha de conexão ou tempo esgotado)",
        ),
        FailureKind::BadFeed => tr!(
            lang,
            "an answer that is no readable feed",
            "une réponse qui n’est pas un flux lisible",
            "uma resposta que não é um feed legível",
        ),
        FailureKind::NotAllowed => tr!(
            lang,
            "a read we did not make because robots.txt or a block said no",
            "une lecture que nous n’avons pas faite parce que robots.txt ou un blocage \
             l’interdisait",
            "uma leitura que não fizemos porque o robots.txt ou um bloqueio a proibia",
        ),
    }
}

fn step_words(lang: Lang, unit: StepUnit, step: u64) -> String {
    match unit {
        StepUnit::Seconds => duration(lang, step),
        StepUnit::Interval if step == 1 => tr!(
            lang,
            "the feed’s interval",
            "l’intervalle du flux",
            "o intervalo do feed",
        ),
        StepUnit::Interval => {
            let n = count(lang, step);
            tr!(
                lang,
                "{n} times the feed’s interval",
                "{n} fois l’intervalle du flux",
                "{n} vezes o intervalo do feed",
            )
        }
    }
}

fn ladder_line(lang: Lang, ladder: &Ladder) -> String {
    let kinds = ladder
        .on
        .iter()
        .map(|&k| kind_words(lang, k))
        .collect::<Vec<_>>()
        .join(", ");
    let steps: Vec<String> = ladder
        .steps
        .iter()
        .map(|&s| step_words(lang, ladder.unit, s))
        .collect();
    let list = join_and(lang, &steps);
    let mut line = tr!(
        lang,
        "<strong>{kinds}</strong>: wait after each failure in a row: {list}",
        "<strong>{kinds}</strong> : attente après chaque échec consécutif : {list}",
        "<strong>{kinds}</strong>: espera após cada falha seguida: {list}",
    );
    if let (true, Some(last)) = (steps.len() > 1, steps.last()) {
        line.push_str(&tr!(
            lang,
            "; then {last} again for each further one",
            " ; puis de nouveau {last} pour chaque échec suivant",
            "; depois, {last} de novo a cada nova falha",
        ));
    }
    line.push('.');
    if ladder.pause_after > 0 {
        let n = count(lang, u64::from(ladder.pause_after));
        line.push(' ');
        line.push_str(&if ladder.pause_after == 1 {
            tr!(
                lang,
                "After 1 failure the feed is paused until a person resumes it.",
                "Après 1 échec, le flux est suspendu jusqu’à ce qu’une personne le relance.",
                "Após 1 falha, o feed é pausado até que uma pessoa o retome.",
            )
        } else {
            tr!(
                lang,
                "After {n} failures in a row the feed is paused until a person resumes it.",
                "Après {n} échecs consécutifs, le flux est suspendu jusqu’à ce qu’une personne \
                 le relance.",
                "Após {n} falhas seguidas, o feed é pausado até que uma pessoa o retome.",
            )
        });
    }
    line
}

fn refusals(html: &mut String, profile: &Profile, lang: Lang) {
    let b = &profile.backoff;
    let (first, max) = (duration(lang, b.first), duration(lang, b.max));
    section_start(
        html,
        "refusals",
        &tr!(
            lang,
            "Refusals and errors",
            "Refus et erreurs",
            "Recusas e erros",
        ),
    );
    para(
        html,
        &tr!(
            lang,
            "A refusal is your answer, not an error to work around: an answered request is \
             never asked again early, and a failure never brings the next read closer than the \
             feed’s usual interval.",
            "Un refus est votre réponse, pas une erreur à contourner : une requête qui a reçu \
             une réponse n’est jamais répétée en avance, et un échec ne rapproche jamais la \
             lecture suivante en deçà de l’intervalle habituel du flux.",
            "Uma recusa é a sua resposta, não um erro a contornar: uma requisição respondida \
             nunca é repetida antes da hora, e uma falha nunca traz a próxima leitura para \
             antes do intervalo habitual do feed.",
        ),
    );
    let mut items: Vec<String> = profile
        .ladders
        .iter()
        .map(|l| ladder_line(lang, l))
        .collect();
    let uncovered = ALL_KINDS.iter().any(|&k| profile.ladder_for(k).is_none());
    if uncovered {
        items.push(if profile.ladders.is_empty() {
            tr!(
                lang,
                "<strong>Any failure</strong>: the next read waits {first}, twice as long \
                 after each further failure in a row, up to {max}.",
                "<strong>Tout échec</strong> : la lecture suivante attend {first}, puis deux \
                 fois plus à chaque nouvel échec consécutif, jusqu’à {max}.",
                "<strong>Qualquer falha</strong>: a próxima leitura espera {first}, o dobro a \
                 cada nova falha seguida, até {max}.",
            )
        } else {
            tr!(
                lang,
                "<strong>Other failures</strong>: the next read waits {first}, twice as long \
                 after each further failure in a row, up to {max}.",
                "<strong>Autres échecs</strong> : la lecture suivante attend {first}, puis \
                 deux fois plus à chaque nouvel échec consécutif, jusqu’à {max}.",
                "<strong>Outras falhas</strong>: a próxima leitura espera {first}, o dobro a \
                 cada nova falha seguida, até {max}.",
            )
        });
    }
    items.push(tr!(
        lang,
        "<code>410 Gone</code> switches the feed off: we do not read it again.",
        "<code>410 Gone</code> désactive le flux : nous ne le relisons plus.",
        "<code>410 Gone</code> desativa o feed: não o lemos mais.",
    ));
    list(html, &items);
    if !profile.ladders.is_empty() {
        para(
            html,
            &tr!(
                lang,
                "A wait is never shorter than the feed’s interval nor longer than {max}.",
                "Une attente n’est jamais plus courte que l’intervalle du flux ni plus longue \
                 que {max}.",
                "Uma espera nunca é mais curta que o intervalo do feed nem mais longa que \
                 {max}.",
            ),
        );
    }
    let patience = profile.retry.no_answer_patience;
    para(
        html,
        &if patience > 0 {
            let n = count(lang, u64::from(patience));
            tr!(
                lang,
                "A request that gets no answer at all (connection failed, timed out) is tried \
                 once more at once, to the same address with the same User-Agent, allowing up \
                 to {n} times the usual time. That is the only second attempt we make.",
                "Une requête restée sans aucune réponse (connexion impossible, délai dépassé) \
                 est retentée une seule fois, aussitôt, vers la même adresse et avec le même \
                 User-Agent, en laissant jusqu’à {n} fois le délai habituel. C’est la seule \
                 seconde tentative que nous faisons.",
                "Uma requisição que não recebe resposta alguma (falha de conexão, tempo \
                 esgotado) é tentada mais uma vez, na hora, no mesmo endereço e com o mesmo \
                 User-Agent, com até {n} vezes o tempo habitual. É a única segunda tentativa \
                 que fazemos.",
            )
        } else {
            tr!(
                lang,
                "A request that gets no answer is not tried again before its next scheduled \
                 read.",
                "Une requête restée sans réponse n’est pas retentée avant la lecture prévue \
                 suivante.",
                "Uma requisição sem resposta não é repetida antes da próxima leitura agendada.",
            )
        },
    );
    html.push_str("</section>\n");
}

fn retry_after(html: &mut String, profile: &Profile, lang: Lang) {
    let cap = duration(lang, profile.backoff.retry_after_max);
    section_start(html, "retry-after", "Retry-After");
    para(
        html,
        &tr!(
            lang,
            "A <code>Retry-After</code> header on any answer is a floor: the feed is not read \
             again before that time. With a 429 or a 503 it holds every request to your host, \
             not only that feed. A Retry-After further out than {cap} counts as {cap}.",
            "Un en-tête <code>Retry-After</code>, dans n’importe quelle réponse, fixe un \
             plancher : le flux n’est pas relu avant cette échéance. Avec un 429 ou un 503, il \
             retient toutes nos requêtes vers votre hôte, pas seulement ce flux. Un \
             Retry-After au-delà de {cap} compte pour {cap}.",
            "Um cabeçalho <code>Retry-After</code> em qualquer resposta é um piso: o feed não \
             é lido de novo antes desse momento. Com um 429 ou um 503, ele segura todas as \
             requisições ao seu host, não só esse feed. Um Retry-After além de {cap} conta \
             como {cap}.",
        ),
    );
    html.push_str("</section>\n");
}

fn robots_failure(lang: Lang, what: OnRobotsFailure, retry: &str) -> String {
    match what {
        OnRobotsFailure::Allow => tr!(
            lang,
            "we read feeds as if there were no robots.txt",
            "nous lisons les flux comme s’il n’y avait pas de robots.txt",
            "lemos os feeds como se não houvesse robots.txt",
        ),
        OnRobotsFailure::Disallow => tr!(
            lang,
            "we read nothing from that host until a later copy of robots.txt allows it",
            "nous ne lisons rien sur cet hôte tant qu’une copie ultérieure de robots.txt ne \
             l’autorise pas",
            "não lemos nada desse host até que uma cópia posterior do robots.txt permita",
        ),
        OnRobotsFailure::Defer => tr!(
            lang,
            "we read nothing now and ask for robots.txt again after {retry}",
            "nous ne lisons rien pour l’instant et redemandons robots.txt après {retry}",
            "não lemos nada por enquanto e pedimos o robots.txt de novo após {retry}",
        ),
    }
}

fn robots(html: &mut String, profile: &Profile, lang: Lang, token: &str) {
    let r = &profile.robots;
    let max_age = duration(lang, r.max_age);
    let retry = duration(lang, profile.backoff.first);
    let on_5xx = robots_failure(lang, r.on_server_error, &retry);
    let on_none = robots_failure(lang, r.on_unreachable, &retry);
    section_start(html, "robots", "robots.txt");
    let mut items = vec![
        if r.star_group_for_feeds {
            tr!(
                lang,
                "Feed addresses follow the group for <code>User-agent: {token}</code> if your \
                 robots.txt has one, otherwise the <code>User-agent: *</code> group.",
                "Les adresses de flux suivent le groupe <code>User-agent: {token}</code> si \
                 votre robots.txt en a un, sinon le groupe <code>User-agent: *</code>.",
                "Os endereços de feed seguem o grupo <code>User-agent: {token}</code>, se o \
                 seu robots.txt tiver um; senão, o grupo <code>User-agent: *</code>.",
            )
        } else {
            tr!(
                lang,
                "Feed addresses follow only the group for <code>User-agent: {token}</code>: \
                 rules under <code>User-agent: *</code> do not apply to feeds, which people \
                 subscribed to themselves.",
                "Les adresses de flux ne suivent que le groupe <code>User-agent: {token}</code> \
                 : les règles de <code>User-agent: *</code> ne s’appliquent pas aux flux, \
                 auxquels des personnes se sont abonnées elles-mêmes.",
                "Os endereços de feed seguem só o grupo <code>User-agent: {token}</code>: as \
                 regras de <code>User-agent: *</code> não valem para feeds, que as pessoas \
                 assinaram por conta própria.",
            )
        },
        tr!(
            lang,
            "A missing robots.txt (404 or another 4xx) means no rules.",
            "Un robots.txt absent (404 ou autre 4xx) signifie : aucune règle.",
            "Um robots.txt ausente (404 ou outro 4xx) significa: nenhuma regra.",
        ),
        tr!(
            lang,
            "If robots.txt answers 429 or 5xx, {on_5xx}.",
            "Si robots.txt répond 429 ou 5xx, {on_5xx}.",
            "Se o robots.txt responder 429 ou 5xx, {on_5xx}.",
        ),
        tr!(
            lang,
            "If robots.txt cannot be reached at all, {on_none}.",
            "Si robots.txt est injoignable, {on_none}.",
            "Se o robots.txt não puder ser alcançado, {on_none}.",
        ),
        tr!(
            lang,
            "We read robots.txt again once our copy is older than {max_age}, so a new rule \
             takes effect within {max_age}.",
            "Nous relisons robots.txt dès que notre copie date de plus de {max_age} : une \
             nouvelle règle s’applique donc au plus tard après {max_age}.",
            "Lemos o robots.txt de novo quando a nossa cópia tem mais de {max_age}: uma regra \
             nova passa a valer em até {max_age}.",
        ),
    ];
    items.push(crawl_delay(profile, lang));
    list(html, &items);
    html.push_str("</section>\n");
}

fn crawl_delay(profile: &Profile, lang: Lang) -> String {
    let r = &profile.robots;
    let gap = seconds_f64(lang, profile.pacing.host_gap);
    if !r.crawl_delay {
        return tr!(
            lang,
            "We do not read <code>Crawl-delay</code>; requests to your host are spaced by \
             {gap}.",
            "Nous ne lisons pas <code>Crawl-delay</code> ; nos requêtes vers votre hôte sont \
             espacées de {gap}.",
            "Não lemos <code>Crawl-delay</code>; as requisições ao seu host são espaçadas em \
             {gap}.",
        );
    }
    let cap = duration(lang, r.crawl_delay_cap);
    let mut text = tr!(
        lang,
        "We honour <code>Crawl-delay</code> in the group that applies to us, up to {cap}: \
         requests to your host are spaced by the longer of {gap} and your crawl-delay.",
        "Nous respectons le <code>Crawl-delay</code> du groupe qui nous concerne, jusqu’à \
         {cap} : nos requêtes vers votre hôte sont espacées du plus long de {gap} et de votre \
         délai.",
        "Respeitamos o <code>Crawl-delay</code> do grupo que se aplica a nós, até {cap}: as \
         requisições ao seu host são espaçadas pelo maior entre {gap} e o seu crawl-delay.",
    );
    text.push(' ');
    text.push_str(&match r.long_crawl_delay {
        LongCrawlDelay::Cap => tr!(
            lang,
            "A longer crawl-delay counts as {cap}.",
            "Un délai plus long compte pour {cap}.",
            "Um crawl-delay mais longo conta como {cap}.",
        ),
        LongCrawlDelay::Pause => {
            let most = duration(lang, MAX_CRAWL_DELAY_CAP);
            tr!(
                lang,
                "A longer one (up to {most}) is kept in full: your host’s work is set aside \
                 until it has passed.",
                "Un délai plus long (jusqu’à {most}) est respecté en entier : les lectures sur \
                 votre hôte sont mises de côté jusqu’à ce qu’il soit écoulé.",
                "Um mais longo (até {most}) é respeitado por inteiro: as leituras no seu host \
                 ficam em espera até que ele passe.",
            )
        }
    });
    if r.first_add_skips_crawl_delay {
        text.push(' ');
        text.push_str(&tr!(
            lang,
            "The single read made when someone first adds a feed does not wait for it.",
            "La lecture unique faite quand quelqu’un ajoute un flux ne l’attend pas.",
            "A leitura única feita quando alguém adiciona um feed não espera por ele.",
        ));
    }
    text
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
        ],
    );
    html.push_str("</section>\n");
}

/// The address in a User-Agent's `(+https://…)` comment, when it is an http(s) one.
fn contact_url(user_agent: &str) -> Option<&str> {
    let start = user_agent.find("+http")? + 1;
    let rest = user_agent.get(start..)?;
    let end = rest.find([')', ' ', ';']).unwrap_or(rest.len());
    let url = rest.get(..end)?;
    (url.starts_with("https://") || url.starts_with("http://")).then_some(url)
}

fn blocking(html: &mut String, profile: &Profile, lang: Lang, token: &str, version: &str) {
    let r = &profile.robots;
    let max_age = duration(lang, r.max_age);
    section_start(
        html,
        "block",
        &tr!(
            lang,
            "How to block or slow it",
            "Comment le bloquer ou le ralentir",
            "Como bloqueá-lo ou desacelerá-lo",
        ),
    );
    para(
        html,
        &tr!(
            lang,
            "To stop {token} reading your feeds, add these lines to your robots.txt:",
            "Pour que {token} cesse de lire vos flux, ajoutez ces lignes à votre robots.txt :",
            "Para que o {token} pare de ler os seus feeds, adicione estas linhas ao seu \
             robots.txt:",
        ),
    );
    html.push_str(&format!(
        "<pre><code>User-agent: {token}\nDisallow: /</code></pre>\n"
    ));
    let mut items = vec![tr!(
        lang,
        "It takes effect within {max_age}, when we next read robots.txt.",
        "Cela prend effet à notre prochaine lecture de robots.txt, au plus tard après \
         {max_age}.",
        "Passa a valer em até {max_age}, na nossa próxima leitura do robots.txt.",
    )];
    items.push(if r.star_group_for_feeds {
        tr!(
            lang,
            "A <code>Disallow</code> under <code>User-agent: *</code> works too, as long as \
             your robots.txt has no group for {token}.",
            "Un <code>Disallow</code> sous <code>User-agent: *</code> fonctionne aussi, tant \
             que votre robots.txt n’a pas de groupe pour {token}.",
            "Um <code>Disallow</code> em <code>User-agent: *</code> também funciona, desde que \
             o seu robots.txt não tenha um grupo para o {token}.",
        )
    } else {
        tr!(
            lang,
            "Rules under <code>User-agent: *</code> alone do not stop feed reads: name \
             {token}.",
            "Les règles sous <code>User-agent: *</code> seules n’arrêtent pas la lecture des \
             flux : nommez {token}.",
            "Regras só em <code>User-agent: *</code> não impedem a leitura de feeds: cite o \
             {token}.",
        )
    });
    items.push(tr!(
        lang,
        "To end one feed for good, answer <code>410 Gone</code>.",
        "Pour arrêter un flux définitivement, répondez <code>410 Gone</code>.",
        "Para encerrar um feed de vez, responda <code>410 Gone</code>.",
    ));
    items.push(tr!(
        lang,
        "To slow us down, answer <code>429</code> or <code>503</code> with \
         <code>Retry-After</code>, or refuse with <code>403</code>: see above.",
        "Pour nous ralentir, répondez <code>429</code> ou <code>503</code> avec \
         <code>Retry-After</code>, ou refusez avec <code>403</code> : voir plus haut.",
        "Para nos desacelerar, responda <code>429</code> ou <code>503</code> com \
         <code>Retry-After</code>, ou recuse com <code>403</code>: veja acima.",
    ));
    list(html, &items);
    let ua = profile.user_agent(version);
    let contact = match contact_url(&ua) {
        Some(url) => {
            let url = esc(url);
            let link = format!("<a href=\"{url}\">{url}</a>");
            tr!(
                lang,
                "Contact: see {link}.",
                "Contact : voir {link}.",
                "Contato: veja {link}.",
            )
        }
        None => tr!(
            lang,
            "Contact: the operator of this tidings instance.",
            "Contact : l’exploitant de cette instance de tidings.",
            "Contato: o operador desta instância do tidings.",
        ),
    };
    para(html, &contact);
    html.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contact_comes_from_the_user_agent_url() {
        let rows = [
            (
                "x/1 (+https://a.example/bot)",
                Some("https://a.example/bot"),
            ),
            (
                "Mozilla/5.0 (compatible; W/1.0; +https://w.example/c)",
                Some("https://w.example/c"),
            ),
            (
                "P v1 (+http://p.example/about)",
                Some("http://p.example/about"),
            ),
            ("x/1 (+javascript:alert(1))", None),
            ("x/1", None),
        ];
        for (ua, want) in rows {
            assert_eq!(contact_url(ua), want, "{ua}");
        }
    }

    #[test]
    fn percentages_follow_the_language() {
        assert_eq!(percent(Lang::En, 0.1), "10%");
        assert_eq!(percent(Lang::Fr, 0.125), "12,5\u{202f}%");
        assert_eq!(percent(Lang::Pt, 0.05), "5%");
    }
}
