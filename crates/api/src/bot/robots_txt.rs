//! The bot page's robots.txt and blocking sections: which group applies to feeds, what an
//! unreadable robots.txt means, crawl-delay, and the lines that block the bot.

use super::lang::Lang;
use super::page::{list, para, section_start};
use super::words::{duration, esc, seconds_f64};
use tidings_policy::Profile;
use tidings_policy::profile::{LongCrawlDelay, OnRobotsFailure};

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

pub(super) fn robots(html: &mut String, profile: &Profile, lang: Lang, token: &str) {
    let r = &profile.robots;
    let max_age = duration(lang, r.max_age);
    let retry = duration(lang, profile.backoff.first);
    let on_5xx = robots_failure(lang, r.on_server_error, &retry);
    let on_none = robots_failure(lang, r.on_unreachable, &retry);
    let on_denied = robots_failure(lang, r.on_access_denied, &retry);
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
            "A missing robots.txt (404, 410 or another 4xx) means no rules.",
            "Un robots.txt absent (404, 410 ou autre 4xx) signifie : aucune règle.",
            "Um robots.txt ausente (404, 410 ou outro 4xx) significa: nenhuma regra.",
        ),
        tr!(
            lang,
            "If robots.txt answers 401 or 403, {on_denied}.",
            "Si robots.txt répond 401 ou 403, {on_denied}.",
            "Se o robots.txt responder 401 ou 403, {on_denied}.",
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
        LongCrawlDelay::Pause => tr!(
            lang,
            "A longer one is kept in full, however long: your host’s work is set aside until \
             it has passed.",
            "Un délai plus long est respecté en entier, quelle que soit sa durée : les \
             lectures sur votre hôte sont mises de côté jusqu’à ce qu’il soit écoulé.",
            "Um mais longo é respeitado por inteiro, seja qual for: as leituras no seu host \
             ficam em espera até que ele passe.",
        ),
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

/// The address in a User-Agent's `(+https://…)` comment, when it is an http(s) one.
fn contact_url(user_agent: &str) -> Option<&str> {
    let start = user_agent.find("+http")? + 1;
    let rest = user_agent.get(start..)?;
    let end = rest.find([')', ' ', ';']).unwrap_or(rest.len());
    let url = rest.get(..end)?;
    (url.starts_with("https://") || url.starts_with("http://")).then_some(url)
}

pub(super) fn blocking(
    html: &mut String,
    profile: &Profile,
    lang: Lang,
    token: &str,
    version: &str,
) {
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
    para(html, &removal_on_request(profile, lang));
    html.push_str("</section>\n");
}

/// C10 (WFM10, DFB, FF "write to us"): the promise every profile keeps, with the profile's
/// address when it has one. `tidings remove` (and the API's and the UI's removal) keeps it.
fn removal_on_request(profile: &Profile, lang: Lang) -> String {
    match &profile.contact.email {
        Some(email) => {
            let email = esc(email);
            let link = format!("<a href=\"mailto:{email}\">{email}</a>");
            tr!(
                lang,
                "To have us stop without touching robots.txt, write to {link} with the address \
                 of the feed or site: a person removes it at once, without asking why, and it \
                 cannot be added again afterwards.",
                "Pour que nous arrêtions sans toucher à robots.txt, écrivez à {link} en \
                 indiquant l’adresse du flux ou du site : une personne le retire aussitôt, sans \
                 demander pourquoi, et il ne peut plus être ajouté ensuite.",
                "Para pararmos sem mexer no robots.txt, escreva para {link} com o endereço do \
                 feed ou do site: uma pessoa o remove na hora, sem perguntar o motivo, e ele não \
                 pode ser adicionado de novo depois.",
            )
        }
        None => tr!(
            lang,
            "To have us stop without touching robots.txt, ask the operator of this instance with \
             the address of the feed or site: it is removed at once, without asking why, and it \
             cannot be added again afterwards.",
            "Pour que nous arrêtions sans toucher à robots.txt, demandez-le à l’exploitant de \
             cette instance en indiquant l’adresse du flux ou du site : il est retiré aussitôt, \
             sans demander pourquoi, et ne peut plus être ajouté ensuite.",
            "Para pararmos sem mexer no robots.txt, peça ao operador desta instância, com o \
             endereço do feed ou do site: ele é removido na hora, sem perguntar o motivo, e não \
             pode ser adicionado de novo depois.",
        ),
    }
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
}
