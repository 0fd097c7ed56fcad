//! The bot page's refusals and Retry-After sections: the profile's failure ladders, its
//! doubling backoff, the one early second attempt and the Retry-After floor and cap.

use super::lang::Lang;
use super::page::{list, para, section_start};
use super::words::{capitalized, count, duration, join_and, join_or};
use tidings_policy::Profile;
use tidings_policy::profile::{FailureKind, Ladder, PauseCount, StepUnit};

fn kind_words(lang: Lang, kind: FailureKind) -> String {
    match kind {
        FailureKind::Forbidden => tr!(
            lang,
            "403 (forbidden)",
            "403 (accès refusé)",
            "403 (acesso negado)",
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
            "another 4xx error, 401 included (410 aside)",
            "une autre erreur 4xx, 401 compris (hors 410)",
            "outro erro 4xx, 401 inclusive (exceto 410)",
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

/// A ladder's steps: "15 minutes, 1 hour and 1 day", or "2, 4 and 8 times the feed’s interval".
fn steps_list(lang: Lang, ladder: &Ladder) -> String {
    match ladder.unit {
        StepUnit::Seconds => {
            let steps: Vec<String> = ladder.steps.iter().map(|&s| duration(lang, s)).collect();
            join_and(lang, &steps)
        }
        StepUnit::Interval => {
            let steps: Vec<String> = ladder.steps.iter().map(|&s| count(lang, s)).collect();
            let list = join_and(lang, &steps);
            tr!(
                lang,
                "{list} times the feed’s interval",
                "{list} fois l’intervalle du flux",
                "{list} vezes o intervalo do feed",
            )
        }
    }
}

fn ladder_line(lang: Lang, ladder: &Ladder) -> String {
    let kinds = if FailureKind::ALL.iter().all(|k| ladder.on.contains(k)) {
        tr!(lang, "Any failure", "Tout échec", "Qualquer falha")
    } else {
        let kinds: Vec<String> = ladder.on.iter().map(|&k| kind_words(lang, k)).collect();
        capitalized(&join_or(lang, &kinds))
    };
    let mut line = match ladder.steps.as_slice() {
        [] => String::new(),
        [one] => {
            let step = step_words(lang, ladder.unit, *one);
            tr!(
                lang,
                "<strong>{kinds}</strong>: after each failure, the next read waits {step}.",
                "<strong>{kinds}</strong> : après chaque échec, la lecture suivante attend \
                 {step}.",
                "<strong>{kinds}</strong>: após cada falha, a próxima leitura espera {step}.",
            )
        }
        [.., last] => {
            let list = steps_list(lang, ladder);
            let last = step_words(lang, ladder.unit, *last);
            tr!(
                lang,
                "<strong>{kinds}</strong>: successive failures wait {list}, and each further \
                 one {last}.",
                "<strong>{kinds}</strong> : les échecs successifs font attendre {list}, puis \
                 {last} pour chacun des suivants.",
                "<strong>{kinds}</strong>: falhas sucessivas fazem esperar {list} e, depois, \
                 {last} a cada nova falha.",
            )
        }
    };
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
        } else if ladder.pause_counts == PauseCount::Total {
            tr!(
                lang,
                "After {n} failures of one kind in total (each kind counted apart, a success in \
                 between does not start the count again) the feed is paused until a person \
                 resumes it.",
                "Après {n} échecs d’un même genre au total (chaque genre compté à part, un \
                 succès entre eux ne remet pas le compte à zéro), le flux est suspendu jusqu’à \
                 ce qu’une personne le relance.",
                "Após {n} falhas de um mesmo tipo no total (cada tipo contado à parte; um \
                 sucesso no meio não zera a contagem), o feed é pausado até que uma pessoa o \
                 retome.",
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

pub(super) fn refusals(html: &mut String, profile: &Profile, lang: Lang) {
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
    let uncovered = FailureKind::ALL
        .iter()
        .any(|&k| profile.ladder_for(k).is_none());
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

pub(super) fn retry_after(html: &mut String, profile: &Profile, lang: Lang) {
    let cap = duration(lang, profile.backoff.retry_after_max);
    section_start(html, "retry-after", "Retry-After");
    para(
        html,
        &tr!(
            lang,
            "A <code>Retry-After</code> header on a refusal (403, 429), a challenge or a \
             5xx answer is a floor: the feed is not read again before that time. With a 429 or a 503 it holds every request to your host, \
             not only that feed. A Retry-After of up to {cap} is honoured in full; a longer one, \
             or a number too large to read, pauses the feed until our operator resumes it, so \
             we never ask earlier than you said.",
            "Un en-tête <code>Retry-After</code> joint à un refus (403, 429), à une page \
             de vérification ou à une erreur 5xx fixe un plancher : le flux n’est pas relu avant cette échéance. Avec un 429 ou un 503, il \
             retient toutes nos requêtes vers votre hôte, pas seulement ce flux. Un \
             Retry-After jusqu’à {cap} est respecté en entier ; au-delà, ou avec un nombre trop \
             grand pour être lu, le flux est suspendu jusqu’à ce que notre opérateur le \
             reprenne : nous ne revenons jamais plus tôt que demandé.",
            "Um cabeçalho <code>Retry-After</code> numa recusa (403, 429), numa página \
             de verificação ou num erro 5xx é um piso: o feed não \
             é lido de novo antes desse momento. Com um 429 ou um 503, ele segura todas as \
             requisições ao seu host, não só esse feed. Um Retry-After de até {cap} é \
             respeitado por inteiro; um mais longo, ou um número grande demais para ler, \
             suspende o feed até que nosso operador o retome: nunca voltamos antes do pedido.",
        ),
    );
    html.push_str("</section>\n");
}
